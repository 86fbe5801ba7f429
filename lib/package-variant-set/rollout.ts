// Rollout waves (docs/package-variant-sets.md, “Rollout waves”): which of a set's creates and
// spec updates this reconcile releases, and where the rollout stands. Stateless: everything is
// recomputed from the plan and the PackageVariants' status, so a restart loses nothing.
import type {
  PackageVariantSetSpec,
  PackageVariantSetStatus,
  PackageVariantSpec,
} from "../../crd-types";
import { CelCostBudget, evaluateTemplateCondition, TemplateInputs } from "../cel";
import { matchesSelector } from "../kubernetes/label-selector";
import type { DesiredVariant, SetPlan } from "./plan";
import { type RenderInputs, TemplateError } from "./render";
import type { TargetContext } from "./unroll";

export type RolloutSpec = NonNullable<PackageVariantSetSpec["rollout"]>;
export type RolloutStatus = NonNullable<PackageVariantSetStatus["rollout"]>;
type WaveStatus = NonNullable<RolloutStatus["waves"]>[number];

/**
 * The longest failure message kept in status.rollout.halted and the RolloutHalted condition: a
 * variant's Ready message may take the whole of a condition's 32 KiB, and ours adds to it.
 */
export const MAX_HALT_MESSAGE = 1024;

const clipped = (message: string) =>
  message.length > MAX_HALT_MESSAGE ? `${message.slice(0, MAX_HALT_MESSAGE)}…` : message;

/** The implicit last wave: targets no wave selects. */
export const REST_WAVE = "rest";

/**
 * The index of the target's wave in spec.rollout.waves (their count for the implicit last
 * one): the first wave whose selector and expression both match. The selector reads the
 * target's labels (the Repository's for a repository list); the expression sees the template's
 * variables. An expression that fails fails the target, like a template.
 */
export function assignWave(
  ctx: TargetContext,
  spec: PackageVariantSpec,
  inputs: RenderInputs,
  rollout: RolloutSpec,
  budget: CelCostBudget,
): number {
  const waves = rollout.waves ?? [];
  const labels =
    "labels" in ctx.target ? ctx.target.labels : inputs.repositories.get(ctx.repoDefault)?.labels;
  const template: TemplateInputs = {
    repoDefault: ctx.repoDefault,
    packageDefault: ctx.packageDefault,
    upstream: inputs.upstreamObject,
    target: ctx.target,
    repository: inputs.repositories.get(spec.downstream?.repo ?? ""),
  };
  const scope = { targetKind: ctx.targetKind, withRepository: true };
  const found = waves.findIndex((wave, i) => {
    if (wave.selector && !matchesSelector(labels, wave.selector)) return false;
    if (wave.expression === undefined) return true;
    try {
      return evaluateTemplateCondition(wave.expression, scope, template, budget);
    } catch (error) {
      throw new TemplateError(`spec.rollout.waves[${i}].expression: ${(error as Error).message}`);
    }
  });
  return found < 0 ? waves.length : found;
}

/** A target whose template could not be rendered, and its wave when the set has spec.rollout. */
export interface RenderFailure {
  repository: string;
  package: string;
  message: string;
  wave?: number;
}

/**
 * The wave of a target whose template failed, judged with its default downstream repository;
 * the first wave when that fails too, so that it halts the rollout at once.
 */
export function failedTargetWave(
  ctx: TargetContext,
  inputs: RenderInputs,
  rollout: RolloutSpec,
  budget: CelCostBudget,
): number {
  try {
    return assignWave(ctx, { downstream: { repo: ctx.repoDefault } }, inputs, rollout, budget);
  } catch {
    return 0;
  }
}

/** What the rollout needs to know of one existing PackageVariant. */
export interface VariantProgress {
  /** Its Ready condition for its current generation (Unknown while stale or pending). */
  ready: "True" | "False" | "Unknown";
  message?: string;
  /** Its downstream package has no draft or proposal left (the latest revision is published). */
  published: boolean;
  /** The merge conflicts its draft's upgrade recorded, as the Upgraded condition says them. */
  conflicts?: string;
}

export interface RolloutFailure {
  packageVariant: string;
  repository?: string;
  package?: string;
  reason: "RenderFailed" | "NotReady" | "Conflicts";
  message: string;
}

export interface RolloutDecision {
  /** The plan with the creates and updates that must wait taken out. */
  plan: SetPlan;
  status: RolloutStatus;
}

type State = "pending" | "inFlight" | "done" | "failed";

interface Entry {
  /** The PackageVariant's name; empty for a target whose template failed. */
  name: string;
  state: State;
  failure?: RolloutFailure;
}

function failureOf(
  d: DesiredVariant,
  p: VariantProgress | undefined,
  rollout: RolloutSpec,
): RolloutFailure | undefined {
  const where = {
    packageVariant: d.name,
    repository: d.spec.downstream?.repo,
    package: d.spec.downstream?.package,
  };
  if (p?.ready === "False")
    return { ...where, reason: "NotReady", message: clipped(p.message ?? "Ready=False") };
  if (rollout.haltOnConflicts && p?.conflicts)
    return { ...where, reason: "Conflicts", message: clipped(p.conflicts) };
  return undefined;
}

/** An unchanged variant's state: the gate is Ready=True, and for `Published` published too. */
function stateOf(d: DesiredVariant, p: VariantProgress | undefined, rollout: RolloutSpec): Entry {
  const failure = failureOf(d, p, rollout);
  if (failure) return { name: d.name, state: "failed", failure };
  const atGate = p?.ready === "True" && (rollout.gate !== "Published" || p.published);
  return { name: d.name, state: atGate ? "done" : "inFlight" };
}

function waveCounts(name: string, entries: Entry[]): WaveStatus {
  const count = (s: State) => entries.filter(e => e.state === s).length;
  return {
    name,
    total: entries.length,
    done: count("done"),
    inFlight: count("inFlight"),
    pending: count("pending"),
    failed: count("failed"),
  };
}

/**
 * Decides what this reconcile releases. The current wave is the first with a target short of
 * the gate. A failed target of the current wave (its template failed, or its PackageVariant
 * did) halts the rollout: nothing more is released until it clears (level-triggered, like the
 * rest of the set). Paused releases nothing either. Otherwise the current wave's creates and updates
 * go, at most maxInFlight short of the gate at once; later waves keep their current spec.
 * Deletions and unchanged variants pass through untouched.
 */
export function decideRollout(
  rollout: RolloutSpec,
  plan: SetPlan,
  progress: ReadonlyMap<string, VariantProgress>,
  renderFailures: RenderFailure[],
): RolloutDecision {
  const names = [...(rollout.waves ?? []).map(w => w.name), REST_WAVE];
  const byWave: Entry[][] = names.map(() => []);
  const at = (wave: number | undefined) =>
    byWave[Math.min(wave ?? names.length - 1, names.length - 1)];
  for (const d of plan.create) at(d.wave).push({ name: d.name, state: "pending" });
  for (const { desired: d } of plan.update) at(d.wave).push({ name: d.name, state: "pending" });
  for (const { existing, desired: d } of plan.unchanged)
    at(d.wave).push(stateOf(d, progress.get(existing.metadata?.name ?? ""), rollout));
  for (const { wave, repository, package: pkg, message } of renderFailures)
    at(wave ?? 0).push({
      name: "",
      state: "failed",
      failure: {
        packageVariant: "",
        repository,
        package: pkg,
        reason: "RenderFailed",
        message: clipped(message),
      },
    });

  const current = byWave.findIndex(entries => entries.some(e => e.state !== "done"));
  const waves = names.map((name, i) => waveCounts(name, byWave[i]));
  const halt = current >= 0 ? byWave[current].find(e => e.failure)?.failure : undefined;
  const status: RolloutStatus = {
    phase: halt ? "Halted" : current < 0 ? "Complete" : rollout.paused ? "Paused" : "Progressing",
    currentWave: current < 0 ? "" : names[current],
    ...(halt && { halted: halt }),
    waves,
  };
  const released = new Set<string>();
  if (!halt && !rollout.paused && current >= 0) {
    const entries = byWave[current];
    const inFlight = entries.filter(e => e.state === "inFlight").length;
    const room = Math.max(0, (rollout.maxInFlight ?? Infinity) - inFlight);
    entries
      .filter(e => e.state === "pending")
      .slice(0, room)
      .forEach(e => released.add(e.name));
  }
  return {
    plan: {
      ...plan,
      create: plan.create.filter(d => released.has(d.name)),
      update: plan.update.filter(u => released.has(u.desired.name)),
    },
    status,
  };
}
