import { PeprValidateRequest, type kind } from "pepr";
import {
  AdmissionContext,
  isOperatorRequest,
  secretUseProblem,
  secretUses,
} from "../../lib/validation";
import type { OperatorContext } from "../context";
import { errorMessage } from "../../lib/errors";

/** What Pepr admits: its requests are typed over the client's object type. */
type KubernetesObject = kind.GenericKind;

type Response = ReturnType<PeprValidateRequest<KubernetesObject>["Approve"]>;

export function answer<T extends KubernetesObject>(
  req: PeprValidateRequest<T>,
  problems: string[],
): Response {
  return problems.length === 0 ? req.Approve() : req.Deny(problems.join("; "));
}

/**
 * The request's operation, and whether it is the operator's own write: decided by the identity
 * the API server authenticated, compared with the one this process runs as. When that identity
 * cannot be learned, no request is taken for the operator's (its write is retried).
 */
export async function requestContext<T extends KubernetesObject>(
  ctx: OperatorContext,
  req: PeprValidateRequest<T>,
): Promise<AdmissionContext> {
  const operator = await ctx.reviews.operatorUsername().catch(() => undefined);
  return {
    operation: req.Request.operation,
    byOperator: isOperatorRequest(req.Request.userInfo, operator),
  };
}

/**
 * The operator reads Secrets with its own rights, so an object may name only Secrets that its
 * author could read: a SubjectAccessReview for the requesting user. Fails closed: a review that
 * cannot be made denies, with the reason.
 */
export async function secretProblems<T extends KubernetesObject>(
  ctx: OperatorContext,
  req: PeprValidateRequest<T>,
  kind: string,
): Promise<string[]> {
  const uses = secretUses(kind, req.Raw as never, req.OldResource as never);
  const problems: string[] = [];
  for (const use of uses) {
    try {
      const { allowed } = await ctx.reviews.userMay(req.Request.userInfo, {
        verb: "get",
        group: "",
        resource: "secrets",
        namespace: use.namespace,
        name: use.name,
      });
      if (!allowed) problems.push(secretUseProblem(use, req.Request.userInfo));
    } catch (error) {
      problems.push(`${use.field}: could not check access to the Secret: ${errorMessage(error)}`);
    }
  }
  return problems;
}
