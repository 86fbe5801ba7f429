import { K8s } from "pepr";
import { PackageRevision, PackageVariantSet, Repository } from "../../crd-types";
import { toCelObject } from "../../lib/cel";
import {
  desiredVariant,
  planSet,
  renderPackageVariantSpec,
  SetIndex,
  TargetContext,
  TemplateError,
} from "../../lib/package-variant-set";
import { selectUpstream, upstreamNotFoundMessage } from "../../lib/packages/upstream";
import { validatePackageVariantSet } from "../../lib/validation";
import { errorMessage, isNotFound } from "../shared/api-errors";
import { splitKey } from "../shared/controller";
import { recordEvent } from "../shared/events";
import { emptyOutcome, SetOutcome, stall, writeStatus } from "./status";
import { unrollTargets } from "./targets";
import { applyPlan, listVariants } from "./variants";

/** Which sets an event concerns; kept current by every reconcile. */
export const sets = new SetIndex();

async function getSet(key: string): Promise<PackageVariantSet | undefined> {
  const { namespace, name } = splitKey(key);
  try {
    return await K8s(PackageVariantSet).InNamespace(namespace).Get(name);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

/** Seed 000 "Find Upstream PR": the upstream package's revisions, filtered by the API server. */
async function findUpstream(set: PackageVariantSet): Promise<PackageRevision | undefined> {
  const upstream = set.spec?.upstream ?? {};
  const revisions = await K8s(PackageRevision)
    .InNamespace(set.metadata?.namespace ?? "")
    .WithField("spec.repository", upstream.repo ?? "")
    .WithField("spec.packageName", upstream.package ?? "")
    .Get();
  return selectUpstream(revisions.items, upstream);
}

async function repositoriesOf(namespace: string) {
  const list = await K8s(Repository).InNamespace(namespace).Get();
  return new Map(list.items.map(r => [r.metadata?.name ?? "", toCelObject(r)]));
}

/** Renders each target's PackageVariant; a failing target is reported and does not stop the rest. */
function renderTargets(
  set: PackageVariantSet,
  upstream: PackageRevision,
  contexts: TargetContext[],
  repositories: Awaited<ReturnType<typeof repositoriesOf>>,
  outcome: SetOutcome,
): void {
  const inputs = {
    upstream: set.spec?.upstream ?? {},
    upstreamObject: toCelObject(upstream),
    repositories,
  };
  for (const ctx of contexts) {
    try {
      outcome.desired.push(
        desiredVariant(set.metadata?.name ?? "", renderPackageVariantSpec(ctx, inputs)),
      );
    } catch (error) {
      if (!(error instanceof TemplateError)) throw error;
      outcome.failedTargets.push({
        repository: ctx.repoDefault,
        package: ctx.packageDefault,
        message: error.message,
      });
    }
  }
  if (outcome.failedTargets.length > 0) {
    const messages = [...new Set(outcome.failedTargets.map(f => f.message))];
    stall(outcome, "ValidationError", messages.join("; "));
  }
}

async function reconcileVariants(
  set: PackageVariantSet,
  complete: boolean,
  outcome: SetOutcome,
): Promise<void> {
  const existing = await listVariants(set);
  const plan = planSet(
    set.metadata?.name ?? "",
    outcome.desired,
    existing,
    complete && !outcome.stalled,
  );
  const result = await applyPlan(set, plan);
  outcome.writeFailures = result.failures;
  outcome.variants = new Map(existing.map(pv => [pv.metadata?.name ?? "", pv]));
  if (result.failures.size > 0)
    outcome.error = `${result.failures.size} PackageVariant(s) could not be written: ${[...result.failures].map(([n, m]) => `${n}: ${m}`).join("; ")}`;
  const changes = [
    result.created && `created ${result.created}`,
    result.updated && `updated ${result.updated}`,
    result.deleted && `deleted ${result.deleted}`,
  ].filter(Boolean);
  if (changes.length > 0)
    await recordEvent(
      set,
      "Normal",
      "PackageVariantsReconciled",
      `${changes.join(", ")} PackageVariant(s)`,
    );
}

/**
 * One PackageVariantSet, level-triggered: validate, find the upstream, unroll the targets,
 * render the templates, make the PackageVariants match, write the status. A failure that a
 * retry may fix throws after the status is written, so the queue retries with backoff.
 */
export async function reconcilePackageVariantSet(key: string): Promise<void> {
  const set = await getSet(key);
  if (!set) return sets.remove(key);
  sets.upsert(set, key);
  if (set.metadata?.deletionTimestamp) return; // its PackageVariants go by garbage collection
  const outcome = emptyOutcome();

  const problems = validatePackageVariantSet(set.spec);
  if (problems.length > 0) {
    outcome.stalled = { reason: "ValidationError", message: problems.join("; ") };
    return writeStatus(set, outcome);
  }
  const upstream = await findUpstream(set);
  if (!upstream) {
    outcome.stalled = {
      reason: "UpstreamNotFound",
      message: upstreamNotFoundMessage(set.spec?.upstream ?? {}),
    };
    return writeStatus(set, outcome);
  }
  try {
    const targets = await unrollTargets(set);
    renderTargets(
      set,
      upstream,
      targets.contexts,
      await repositoriesOf(set.metadata?.namespace ?? ""),
      outcome,
    );
    if (targets.noMatch.length > 0) stall(outcome, "NoMatchingTargets", targets.noMatch.join("; "));
    await reconcileVariants(set, targets.noMatch.length === 0, outcome);
    sets.setDownstreamRepos(
      key,
      outcome.desired.map(d => d.spec.downstream?.repo ?? ""),
    );
  } catch (error) {
    outcome.error = errorMessage(error);
    outcome.incomplete = true;
  }
  await writeStatus(set, outcome);
  if (outcome.error) throw new Error(outcome.error);
}
