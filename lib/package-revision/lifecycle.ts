import { isPublished, LIFECYCLES, type Lifecycle } from "../git/types";

/** True when `a` is further along Draft → Proposed → Published → DeletionProposed than `b`. */
export function isFurtherAlong(a: Lifecycle, b: Lifecycle): boolean {
  return LIFECYCLES.indexOf(a) > LIFECYCLES.indexOf(b);
}

/**
 * The one table of lifecycle moves (staying put is always allowed): Draft ⇄ Proposed,
 * Proposed → Published, Published ⇄ DeletionProposed. Admission, the PackageRevision controller
 * and the git store all ask transitionProblem, which reads only this.
 */
export const LIFECYCLE_TRANSITIONS: Readonly<Record<Lifecycle, readonly Lifecycle[]>> = {
  Draft: ["Proposed"],
  Proposed: ["Draft", "Published"],
  Published: ["DeletionProposed"],
  DeletionProposed: ["Published"],
};

/** Why a lifecycle move cannot be done, or undefined when LIFECYCLE_TRANSITIONS allows it. */
export function transitionProblem(from: Lifecycle, to: Lifecycle): string | undefined {
  if (from === to || LIFECYCLE_TRANSITIONS[from].includes(to)) return undefined;
  if (from === "Draft" && to === "Published")
    return "a Draft must be Proposed before it can be Published";
  if (isPublished(from)) {
    return `a ${from} revision cannot go back to ${to}: create a new draft from it (spec.source.copyFrom)`;
  }
  return `only a Published revision can be proposed for deletion; delete this ${from} revision instead`;
}

/**
 * The moves kptdev/porch makes through its `approval` subresource (porchctl approve and
 * reject): approving a proposal, rejecting it back to Draft, and rejecting a deletion proposal.
 * Here they are the moves that need `update` on `packagerevisions/approval`. Proposing a
 * deletion (Published → DeletionProposed) is an edit, as Porch's plain update allows it.
 */
export const APPROVAL_MOVES: readonly (readonly [Lifecycle, Lifecycle])[] = [
  ["Proposed", "Published"],
  ["Proposed", "Draft"],
  ["DeletionProposed", "Published"],
];

export function isApprovalMove(from: Lifecycle, to: Lifecycle): boolean {
  return APPROVAL_MOVES.some(([f, t]) => f === from && t === to);
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
