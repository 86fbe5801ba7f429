import type { SubjectAccessReview } from "../../../lib/cluster/kinds";
import type { KubeObject, ResourceKind } from "../../../lib/cluster/port";
import { apiVersionOf } from "../../../lib/cluster/port";
import { clone } from "./patch";

/** The review kinds: created for the answer in their status, never stored. */

export type AccessSpec = NonNullable<SubjectAccessReview["spec"]>;

export interface ReviewAnswers {
  /** Who SelfSubjectReview says the caller is; by default the operator's service account. */
  username?: string;
  groups?: string[];
  /** SubjectAccessReview's answer; every access is allowed by default. */
  mayAccess?: (spec: AccessSpec) => boolean;
}

export function answerReview(kind: ResourceKind, obj: KubeObject, answers: ReviewAnswers) {
  const review = clone({
    ...obj,
    apiVersion: apiVersionOf(kind),
    kind: kind.kind,
  }) as KubeObject & {
    spec?: AccessSpec;
    status?: unknown;
  };
  if (kind.group === "authentication.k8s.io" && kind.kind === "SelfSubjectReview")
    review.status = {
      userInfo: {
        username: answers.username ?? "system:serviceaccount:pepr-system:pepr-porch-pepr",
        groups: [...(answers.groups ?? ["system:serviceaccounts", "system:authenticated"])],
      },
    };
  if (kind.group === "authorization.k8s.io" && kind.kind === "SubjectAccessReview")
    review.status = { allowed: answers.mayAccess?.(clone(review.spec ?? {})) ?? true };
  return review;
}
