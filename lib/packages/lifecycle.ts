import { isPublished, type Lifecycle } from "../git/types";

const ORDER: Lifecycle[] = ["Draft", "Proposed", "Published", "DeletionProposed"];

/** True when `a` is further along Draft → Proposed → Published → DeletionProposed than `b`. */
export function isFurtherAlong(a: Lifecycle, b: Lifecycle): boolean {
  return ORDER.indexOf(a) > ORDER.indexOf(b);
}

/**
 * Why a lifecycle move cannot be done, or undefined when it can: Draft ⇄ Proposed,
 * Proposed → Published, Published ⇄ DeletionProposed. Admission and the controller share it.
 */
export function transitionProblem(from: Lifecycle, to: Lifecycle): string | undefined {
  if (from === to) return undefined;
  const allowed: Record<Lifecycle, Lifecycle[]> = {
    Draft: ["Proposed"],
    Proposed: ["Draft", "Published"],
    Published: ["DeletionProposed"],
    DeletionProposed: ["Published"],
  };
  if (allowed[from].includes(to)) return undefined;
  if (from === "Draft" && to === "Published")
    return "a Draft must be Proposed before it can be Published";
  if (from === "Published" || from === "DeletionProposed") {
    return `a ${from} revision cannot go back to ${to}: create a new draft from it (spec.source.copyFrom)`;
  }
  return `only a Published revision can be proposed for deletion; delete this ${from} revision instead`;
}

export interface ReadinessInput {
  readinessGates?: { conditionType: string }[];
  conditions?: { type: string; status: string }[];
  packageConditions?: { type: string; status: string }[];
}

/** Readiness gates whose condition is not True (conditions of the object or of its Kptfile). */
export function unmetReadinessGates(input: ReadinessInput): string[] {
  const all = [...(input.conditions ?? []), ...(input.packageConditions ?? [])];
  return (input.readinessGates ?? [])
    .map(g => g.conditionType)
    .filter(type => !all.some(c => c.type === type && c.status === "True"));
}

/**
 * Why a revision cannot be copied (spec.source.copyFrom), or undefined when it can: only a
 * published revision has content that no longer changes under the copy. Admission and the
 * source step share it.
 */
export function copySourceProblem(source: {
  metadata?: { name?: string };
  spec?: { lifecycle?: string };
}): string | undefined {
  const lifecycle = source.spec?.lifecycle ?? "Draft";
  if (isPublished(lifecycle)) return undefined;
  return `copyFrom "${source.metadata?.name ?? ""}" is ${lifecycle}: only a Published revision can be copied (publish it first)`;
}
