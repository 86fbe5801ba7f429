import { PeprValidateRequest, type kind } from "pepr";
import { isDeepStrictEqual } from "node:util";
import { errorMessage } from "../../lib/errors";

/** What Pepr admits: its requests are typed over the client's object type. */
type KubernetesObject = kind.GenericKind;

type ValidateResponse = ReturnType<PeprValidateRequest<KubernetesObject>["Approve"]>;

interface WithSpec extends KubernetesObject {
  spec?: unknown;
}

/**
 * Turns a pure rule set into a Pepr validator that denies with every problem, joined by "; ".
 * It never throws: Pepr reports a thrown error as "Action failed with error: {}".
 * Updates that leave the spec alone are admitted, so an object created while the webhook was
 * down can still get finalizers removed and be deleted (the controller reports its problems).
 */
export function denyProblems<T extends WithSpec>(
  rules: (spec: T["spec"], req: PeprValidateRequest<T>) => string[] | Promise<string[]>,
): (req: PeprValidateRequest<T>) => Promise<ValidateResponse> {
  return async req => {
    try {
      const old = req.OldResource as WithSpec | undefined;
      // Not "terminating, so admitted": a tenant's own finalizer can hold an object terminating
      // while its spec is edited; finalizer removals leave the spec alone.
      if (req.Request.operation === "UPDATE" && isDeepStrictEqual(old?.spec, req.Raw.spec)) {
        return req.Approve();
      }
      const problems = await rules(req.Raw.spec, req);
      return problems.length === 0 ? req.Approve() : req.Deny(problems.join("; "));
    } catch (error) {
      return req.Deny(`validation failed unexpectedly: ${errorMessage(error)}`);
    }
  };
}
