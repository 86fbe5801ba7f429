// Nephio-compatible approval policies (docs/package-variants.md, “Approval policies”): the
// annotations Nephio's approval controller reads, and the grant that makes them act here. The
// annotation alone never publishes: admission records who held the approval right when a
// policy was set (the grant, written from the request's userInfo like the approval record),
// and the controller approves only drafts carrying a grant.
import { isPublished, type Lifecycle } from "../git/types";

export const POLICY_ANNOTATION = "approval.nephio.org/policy";
export const DELAY_ANNOTATION = "approval.nephio.org/delay";
/** Who held `update packagerevisions/approval` when the policy was set (admission writes it). */
export const GRANT_ANNOTATION = "porch.kpt.dev/approval-policy-granted-by";

export const POLICIES = ["initial", "always"] as const;
export type Policy = (typeof POLICIES)[number];

/** The longest delay accepted: a requeue that far ahead is still one timer. */
export const MAX_DELAY_MS = 24 * 60 * 60 * 1000;

type Annotations = Record<string, string> | undefined;

const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A Go duration string ("90s", "1h30m", "0"), as Nephio parses the delay, in milliseconds;
 * undefined when it is not one. A sign is accepted only to reject a negative delay by name.
 */
export function parseGoDuration(value: string): number | undefined {
  const match = /^([-+]?)(.*)$/.exec(value);
  const body = match?.[2] ?? "";
  if (body === "0") return 0;
  if (body === "" || body.length > 64) return undefined;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let total = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const m = part.exec(body);
    if (!m) return undefined;
    total += Number(m[1]) * UNIT_MS[m[2]];
    at = part.lastIndex;
  }
  return match?.[1] === "-" ? -total : total;
}

/** The problems of the policy annotations in `annotations`, each naming `field`[key]. */
export function policyValueProblems(annotations: Annotations, field: string): string[] {
  const problems: string[] = [];
  const policy = annotations?.[POLICY_ANNOTATION];
  if (policy !== undefined && !(POLICIES as readonly string[]).includes(policy))
    problems.push(
      `${field}[${POLICY_ANNOTATION}]: unknown approval policy ${JSON.stringify(policy)}: must be "initial" or "always"`,
    );
  const delay = annotations?.[DELAY_ANNOTATION];
  if (delay !== undefined) {
    const ms = parseGoDuration(delay);
    if (ms === undefined || ms < 0 || ms > MAX_DELAY_MS)
      problems.push(
        `${field}[${DELAY_ANNOTATION}]: ${JSON.stringify(delay)} is not a delay: a duration such as "90s" or "5m", from 0 to 24h`,
      );
  }
  return problems;
}

export function carriesPolicy(annotations: Annotations): boolean {
  return annotations?.[POLICY_ANNOTATION] !== undefined;
}

function samePolicy(a: Annotations, b: Annotations): boolean {
  return (
    a?.[POLICY_ANNOTATION] === b?.[POLICY_ANNOTATION] &&
    a?.[DELAY_ANNOTATION] === b?.[DELAY_ANNOTATION]
  );
}

export interface GrantInput {
  /** The annotations stored before the request (absent on create). */
  old: Annotations;
  /** The annotations the request leaves. */
  next: Annotations;
  username: string | undefined;
  byOperator: boolean;
  /**
   * Whether the request changes what a policy-carrying object makes (a variant's or a set's
   * spec, apart from the grant): steering what is auto-approved is an approval too.
   */
  steers?: boolean;
}

export interface GrantDecision {
  /** The grant the object must carry after the request; undefined: none. */
  grant: string | undefined;
  /** Whether the requester's approval right must be checked (a SubjectAccessReview). */
  review: boolean;
}

/**
 * The grant a request leaves. The operator's writes keep what it sends (it copies a grant
 * admission stamped on the set or variant); a user who sets, changes or steers a policy
 * becomes its grantor, once their right is checked; any other request keeps the stored grant,
 * and an object without a policy carries none.
 */
export function grantAfter(input: GrantInput): GrantDecision {
  const { old, next, username, byOperator } = input;
  if (byOperator) return { grant: next?.[GRANT_ANNOTATION], review: false };
  if (!carriesPolicy(next)) return { grant: undefined, review: false };
  // Kept as stored, a grant or none (a policy an operator's write brought without one).
  if (carriesPolicy(old) && samePolicy(old, next) && !input.steers)
    return { grant: old?.[GRANT_ANNOTATION], review: false };
  return { grant: username, review: true };
}

export function grantProblems(wanted: string | undefined, got: Annotations, field: string) {
  return wanted === got?.[GRANT_ANNOTATION]
    ? []
    : [
        `${field}[${GRANT_ANNOTATION}] is recorded by admission from the user whose approval right was checked; it cannot be set or changed`,
      ];
}

export function grantDenial(user: string | undefined, namespace: string, field: string): string {
  return `${field}[${POLICY_ANNOTATION}]: ${JSON.stringify(user ?? "")} may not update packagerevisions/approval in namespace ${JSON.stringify(namespace)}; setting, changing or steering an approval policy is an approval`;
}

/** What the operator records as proposer and approver when a policy moves a revision. */
export function onBehalfOf(operator: string, grantor: string): string {
  return `${operator} on behalf of ${grantor}`;
}

export interface ApprovalInput {
  lifecycle: Lifecycle;
  annotations: Annotations;
  /** creationTimestamp, ms since the epoch; the delay counts from it, as in Nephio. */
  createdMs: number;
  nowMs: number;
  /** Ready=True and Rendered=True on the revision's current generation. */
  ready: boolean;
  unmetGates: string[];
  /** The owning PackageVariant's Ready; undefined when no PackageVariant controls it. */
  ownerReady: boolean | undefined;
  /** Whether the package has a Published (or DeletionProposed) revision already. */
  publishedExists: boolean;
}

/** Why a policy waits: each ends by itself. */
export type WaitReason = "VariantNotReady" | "NotReady" | "GatesNotMet" | "Delayed";
/** Why a policy refuses: each needs a person. */
export type RefusalReason = "NoGrant" | "InvalidPolicy" | "PolicyNotMet";
/** The reasons of the ApprovalPolicy condition: a wait, a refusal, or the move it made. */
export type ApprovalPolicyReason = WaitReason | RefusalReason | "Proposed" | "Published";

export type ApprovalDecision =
  | { action: "none" }
  | { action: "propose" | "approve"; grantor: string }
  | { action: "wait"; reason: WaitReason; message: string; requeueAfterMs?: number }
  | { action: "refuse"; reason: RefusalReason; message: string };

/**
 * What the approval policy does with one revision now, in Nephio's order: published or
 * unannotated revisions are left alone; the owning variant must be Ready and the readiness
 * gates met; `initial` only while the package has no published revision; then the delay; then
 * Draft → Proposed, Proposed → Published, one step per call. A missing grant refuses.
 */
export function decideApproval(input: ApprovalInput): ApprovalDecision {
  const { annotations } = input;
  const policy = annotations?.[POLICY_ANNOTATION];
  if (policy === undefined || isPublished(input.lifecycle)) return { action: "none" };
  const problems = policyValueProblems(annotations, "metadata.annotations");
  if (problems.length > 0)
    return { action: "refuse", reason: "InvalidPolicy", message: problems.join("; ") };
  const grantor = annotations?.[GRANT_ANNOTATION];
  if (!grantor)
    return {
      action: "refuse",
      reason: "NoGrant",
      message: `no ${GRANT_ANNOTATION}: the policy was not set by a user admission checked for the approval right, so it approves nothing`,
    };
  if (input.ownerReady === false)
    return {
      action: "wait",
      reason: "VariantNotReady",
      message: "owning PackageVariant not Ready",
    };
  if (!input.ready)
    return {
      action: "wait",
      reason: "NotReady",
      message: "the revision is not Ready and rendered",
    };
  if (input.unmetGates.length > 0)
    return {
      action: "wait",
      reason: "GatesNotMet",
      message: `readiness gates not met: ${input.unmetGates.join(", ")}`,
    };
  if (policy === "initial" && input.publishedExists)
    return {
      action: "refuse",
      reason: "PolicyNotMet",
      message: `approval policy "initial" not met: the package already has a published revision`,
    };
  const delayMs = parseGoDuration(annotations?.[DELAY_ANNOTATION] ?? "0") ?? 0;
  const remaining = input.createdMs + delayMs - input.nowMs;
  if (remaining > 0)
    return {
      action: "wait",
      reason: "Delayed",
      // A fixed instant, not the time left: an unchanged message is not written again.
      message: `delay time not met: approvable from ${new Date(input.createdMs + delayMs).toISOString()}`,
      requeueAfterMs: remaining,
    };
  return { action: input.lifecycle === "Draft" ? "propose" : "approve", grantor };
}

/** The grantor of the policy stored on a revision, if it carries a policy and a grant. */
export function policyGrantor(annotations: Annotations): string | undefined {
  return carriesPolicy(annotations) ? annotations?.[GRANT_ANNOTATION] || undefined : undefined;
}

/**
 * A set's rendered annotations with the grant admission stamped on the template, whatever a
 * computed key (keyExpr) wrote: only admission writes a grant.
 */
export function withStampedGrant(
  rendered: Record<string, string>,
  template: Annotations,
): Record<string, string> {
  const result = { ...rendered };
  const stamped = template?.[GRANT_ANNOTATION];
  if (stamped === undefined) delete result[GRANT_ANNOTATION];
  else result[GRANT_ANNOTATION] = stamped;
  return result;
}

/** `annotations` without a grant. */
export function withoutGrant(annotations: Record<string, string>): Record<string, string> {
  const rest = { ...annotations };
  delete rest[GRANT_ANNOTATION];
  return rest;
}
