import { SelfSubjectReviewKind, SubjectAccessReviewKind } from "../../lib/cluster/kinds";
import type { Cluster } from "../../lib/cluster/port";
import type { RequestUser } from "../../lib/validation/requester";
import { ReviewGate } from "../../lib/validation/access-review-gate";

/** Who the operator is, and what a requester may do, as the API server decides. */
export class AccessReviews {
  #own: Promise<string> | undefined;

  constructor(
    private readonly cluster: Cluster,
    /** Every review of the process goes through it: bounded, fair by user, answers cached. */
    private readonly gate: ReviewGate,
  ) {}

  /**
   * The user name this process authenticates as (a SelfSubjectReview, which every
   * authenticated user may create). Remembered once known; a failure is retried on the next
   * call, and until then no request is taken for the operator's own.
   */
  operatorUsername(): Promise<string> {
    this.#own ??= this.cluster
      .create(SelfSubjectReviewKind, {})
      .then(review => {
        const name = review?.status?.userInfo?.username;
        if (!name) throw new Error("SelfSubjectReview returned no user name");
        return name;
      })
      .catch(error => {
        this.#own = undefined; // asked again next time, whichever step failed
        throw error;
      });
    return this.#own;
  }

  /**
   * Whether `user` may do `verb` on one object, or on every object of a resource in the
   * namespace when `name` is absent; `resource` may name a subresource (a SubjectAccessReview).
   */
  async userMay(
    user: RequestUser,
    attributes: {
      verb: string;
      group: string;
      resource: string;
      subresource?: string;
      namespace: string;
      name?: string;
    },
  ): Promise<{ allowed: boolean }> {
    const allowed = await this.gate.answer(user, attributes, async () => {
      const review = await this.cluster.create(SubjectAccessReviewKind, {
        spec: {
          user: user.username,
          uid: user.uid,
          groups: user.groups,
          extra: user.extra,
          resourceAttributes: attributes,
        },
      });
      const status = review?.status ?? {};
      return status.allowed === true && status.denied !== true;
    });
    return { allowed };
  }
}
