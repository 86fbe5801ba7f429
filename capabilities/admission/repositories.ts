import type { OperatorContext } from "../context";
import { PeprValidateRequest } from "pepr";
import { Repository } from "../../crd-types";
import { isDeepStrictEqual } from "node:util";
import { gitUrlPolicyFromEnv } from "../../lib/git/url-policy";
import { validateRepository } from "../../lib/validation";
import { errorMessage } from "../../lib/errors";
import { answer, requestContext, secretProblems } from "./requests";

type Response = ReturnType<PeprValidateRequest<Repository>["Approve"]>;

/**
 * A Repository's URL must pass the operator's git URL policy, and it may name only credentials
 * its author may read (the operator reads them). An unchanged spec is admitted, so an object
 * made under an older policy can still be finalized; a terminating object's changed spec is
 * checked like any other (a tenant's own finalizer can hold an object terminating).
 */
export async function validateRepositoryRequest(
  ctx: OperatorContext,
  req: PeprValidateRequest<Repository>,
): Promise<Response> {
  try {
    const old = req.OldResource as Repository | undefined;
    if (old && isDeepStrictEqual(old.spec, req.Raw.spec)) return req.Approve();
    const admission = await requestContext(ctx, req);
    if (admission.byOperator) return req.Approve();
    return answer(req, [
      ...validateRepository(req.Raw.spec, gitUrlPolicyFromEnv(process.env)),
      ...(await secretProblems(ctx, req, "Repository")),
    ]);
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}
