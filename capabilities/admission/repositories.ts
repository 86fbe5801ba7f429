import { PeprValidateRequest } from "pepr";
import { Repository } from "../../crd-types";
import { errorMessage } from "../shared/api-errors";
import { answer, requestContext, secretProblems } from "./requests";

type Response = ReturnType<PeprValidateRequest<Repository>["Approve"]>;

/** A Repository may name only credentials its author may read (the operator reads them). */
export async function validateRepositoryRequest(
  req: PeprValidateRequest<Repository>,
): Promise<Response> {
  try {
    if (req.Raw.metadata?.deletionTimestamp) return req.Approve();
    const ctx = await requestContext(req);
    return answer(req, ctx.byOperator ? [] : await secretProblems(req, "Repository"));
  } catch (error) {
    return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
  }
}
