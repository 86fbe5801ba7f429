// Who proposed and who approved a revision, as the API server authenticated them. Admission
// writes both annotations from the request's userInfo (a mutating step) and refuses any other
// value (a validating step), so they are never a value a client chose; the controller writes
// the approver into git (author and trailer of the publishing commit).
import { safeIdentity } from "../git/identity";
import type { ApprovalRecord, Lifecycle } from "../git/types";
import { onBehalfOf } from "./approval-policy";

export const PROPOSED_BY_ANNOTATION = "porch.kpt.dev/proposed-by";
export const APPROVED_BY_ANNOTATION = "porch.kpt.dev/approved-by";

/** The environment variable that forbids approving one's own proposal in every namespace. */
export const FORBID_SELF_APPROVAL_VARIABLE = "PORCH_PEPR_FORBID_SELF_APPROVAL";
/** The Namespace label (value "true") that opts one namespace into the same policy. */
export const FORBID_SELF_APPROVAL_LABEL = "porch.kpt.dev/forbid-self-approval";

type Annotations = Record<string, string> | undefined;

export function recordOf(annotations: Annotations): ApprovalRecord {
  const proposedBy = annotations?.[PROPOSED_BY_ANNOTATION];
  const approvedBy = annotations?.[APPROVED_BY_ANNOTATION];
  return { ...(proposedBy && { proposedBy }), ...(approvedBy && { approvedBy }) };
}

/**
 * What a request leaves recorded: a user's proposal records them as proposer (and forgets an
 * earlier approval), a user's approval records them as approver; every other request, and
 * every other request of the operator, keeps what is stored. The operator's moves of a
 * revision under an approval policy (approval-policy.ts) record the operator as proposer and
 * "<operator> on behalf of <grantor>" as approver.
 */
export function recordAfter(
  from: Lifecycle | undefined,
  to: Lifecycle,
  username: string | undefined,
  byOperator: boolean,
  stored: Annotations,
  policyGrantor?: string,
): ApprovalRecord {
  const kept = recordOf(stored);
  if (byOperator && policyGrantor && username && from !== to) {
    if (to === "Proposed") return { proposedBy: username };
    if (from === "Proposed" && to === "Published")
      return { ...kept, approvedBy: onBehalfOf(username, policyGrantor) };
  }
  if (byOperator || !username || from === to) return kept;
  if (to === "Proposed") return { proposedBy: username };
  if (from === "Proposed" && to === "Published") return { ...kept, approvedBy: username };
  return kept;
}

/** The annotation problems of a request whose annotations differ from recordAfter's. */
export function recordProblems(wanted: ApprovalRecord, annotations: Annotations): string[] {
  const got = recordOf(annotations);
  return (
    [
      [PROPOSED_BY_ANNOTATION, wanted.proposedBy, got.proposedBy],
      [APPROVED_BY_ANNOTATION, wanted.approvedBy, got.approvedBy],
    ] as const
  )
    .filter(([, want, have]) => want !== have)
    .map(
      ([key]) =>
        `metadata.annotations[${key}] is recorded by admission from the authenticated user; it cannot be set or changed`,
    );
}

/** Whether approving one's own proposal is refused: operator-wide, or the namespace opted in. */
export function selfApprovalForbidden(
  env: Record<string, string | undefined>,
  namespaceLabels: Annotations,
): boolean {
  return (
    env[FORBID_SELF_APPROVAL_VARIABLE] === "true" ||
    namespaceLabels?.[FORBID_SELF_APPROVAL_LABEL] === "true"
  );
}

export function selfApprovalProblem(username: string, namespace: string): string {
  return `spec.lifecycle: ${JSON.stringify(username)} proposed this revision and may not approve it: approving one's own proposal is forbidden in namespace ${JSON.stringify(namespace)}`;
}

/**
 * Git trailers of the publishing commit naming who proposed and who approved. A user name is
 * whatever the cluster's authenticator says (an OIDC claim, a certificate's CN): a line break
 * in it would add a forged trailer line, so it is cleaned as a commit identity is.
 */
export function approvalTrailers(record: ApprovalRecord): string[] {
  const trailer = (key: string, user: string | undefined) => {
    const name = user ? safeIdentity(user) : "";
    return name ? [`${key}: ${name}`] : [];
  };
  return [
    ...trailer("Proposed-by", record.proposedBy),
    ...trailer("Approved-by", record.approvedBy),
  ];
}
