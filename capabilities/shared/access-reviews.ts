import { SelfSubjectReviewKind, SubjectAccessReviewKind } from "../../lib/cluster/kinds";
import type { RequestUser } from "../../lib/validation/requester";
import { cluster } from "./cluster";

let own: Promise<string> | undefined;

/**
 * The user name this process authenticates as (a SelfSubjectReview, which every authenticated
 * user may create). Remembered once known; a failure is retried on the next call, and until
 * then no request is taken for the operator's own.
 */
export function operatorUsername(): Promise<string> {
  own ??= cluster
    .create(SelfSubjectReviewKind, {})
    .then(review => {
      const name = review?.status?.userInfo?.username;
      if (!name) throw new Error("SelfSubjectReview returned no user name");
      return name;
    })
    .catch(error => {
      own = undefined; // asked again next time, whichever step failed
      throw error;
    });
  return own;
}

/** Whether `user` may do `verb` on one object (a SubjectAccessReview, as the API server decides). */
export async function userMay(
  user: RequestUser,
  attributes: { verb: string; group: string; resource: string; namespace: string; name: string },
): Promise<{ allowed: boolean; reason?: string }> {
  const review = await cluster.create(SubjectAccessReviewKind, {
    spec: {
      user: user.username,
      uid: user.uid,
      groups: user.groups,
      extra: user.extra,
      resourceAttributes: attributes,
    },
  });
  const status = review?.status ?? {};
  return { allowed: status.allowed === true && status.denied !== true, reason: status.reason };
}
