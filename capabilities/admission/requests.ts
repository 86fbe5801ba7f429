import { PeprValidateRequest, type kind } from "pepr";
import {
  AdmissionContext,
  isOperatorRequest,
  readUseProblem,
  secretUseProblem,
  secretUses,
  type ReadUse,
  type RequestUser,
} from "../../lib/validation";
import { PackageRevisionKind } from "../../crd-types";
import type { OperatorContext } from "../context";
import { NoMatchError } from "../shared/discovery";
import { errorMessage } from "../../lib/errors";
import { mapLimit } from "../../lib/controller/concurrency";
import { ADMISSION_REVIEWS_DEADLINE_MS } from "../../lib/validation/access-review-gate";

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
export async function requestContext(
  ctx: OperatorContext,
  req: { Request: { operation: string; userInfo: RequestUser } },
): Promise<AdmissionContext> {
  const operator = await ctx.reviews.operatorUsername().catch(() => undefined);
  return {
    operation: req.Request.operation,
    byOperator: isOperatorRequest(req.Request.userInfo, operator),
  };
}

/** One question for the API server's authorizer, and the denial when the answer is no. */
interface Review {
  field: string;
  attributes: Parameters<OperatorContext["reviews"]["userMay"]>[1];
  denial: () => string;
}

/**
 * The approval right (issue 27): `update` on `packagerevisions/approval`, on one revision or,
 * without `name`, namespace-wide. RBAC grants that subresource although no API serves it here.
 */
export function approvalRight(namespace: string, name?: string): Review["attributes"] {
  return {
    verb: "update",
    group: PackageRevisionKind.group,
    resource: PackageRevisionKind.plural,
    subresource: "approval",
    namespace,
    ...(name !== undefined && { name }),
  };
}

/**
 * One request's SubjectAccessReviews at once (all requests together: ctx.reviews' gate), and how
 * long they may take together (README “Security model”).
 */
const REVIEWS_AT_ONCE = 8;
const REVIEWS_DEADLINE_MS = ADMISSION_REVIEWS_DEADLINE_MS;

/**
 * SubjectAccessReviews for the requesting user; the denials of those refused, in the reviews'
 * order. Fields asking the same question share one review. Fails closed: a review that cannot be
 * made, or is not reached before the deadline, denies, with the reason.
 */
export async function reviewProblems<T extends KubernetesObject>(
  ctx: OperatorContext,
  req: PeprValidateRequest<T>,
  reviews: Review[],
): Promise<string[]> {
  const questions = new Map<string, Review["attributes"]>();
  for (const review of reviews) questions.set(questionKey(review.attributes), review.attributes);
  const deadline = Date.now() + REVIEWS_DEADLINE_MS;
  const answers = new Map<string, Answer>();
  await mapLimit([...questions], REVIEWS_AT_ONCE, async ([key, attributes]) => {
    answers.set(key, await ask(ctx, req.Request.userInfo, attributes, deadline));
  });
  return reviews.flatMap(review => {
    const answer = answers.get(questionKey(review.attributes));
    if (answer === undefined || answer.allowed) return [];
    return [
      answer.failed ? `${review.field}: could not check access: ${answer.failed}` : review.denial(),
    ];
  });
}

/** A review's answer; `failed` when it could not be made (which denies). */
type Answer = { allowed: true; failed?: never } | { allowed: false; failed?: string };

async function ask(
  ctx: OperatorContext,
  user: RequestUser,
  attributes: Review["attributes"],
  deadline: number,
): Promise<Answer> {
  if (Date.now() > deadline)
    return {
      allowed: false,
      failed: `the access reviews took longer than ${REVIEWS_DEADLINE_MS / 1000} s`,
    };
  try {
    return (await ctx.reviews.userMay(user, attributes)).allowed
      ? { allowed: true }
      : { allowed: false };
  } catch (error) {
    return { allowed: false, failed: errorMessage(error) };
  }
}

/** Reviews with equal attributes ask the same question. */
function questionKey(a: Review["attributes"]): string {
  return JSON.stringify([a.verb, a.group, a.resource, a.subresource, a.namespace, a.name]);
}

/**
 * The operator reads Secrets with its own rights, so an object may name only Secrets that its
 * author could read: a SubjectAccessReview for the requesting user.
 */
export async function secretProblems<T extends KubernetesObject>(
  ctx: OperatorContext,
  req: PeprValidateRequest<T>,
  kind: string,
): Promise<string[]> {
  const uses = secretUses(kind, req.Raw as never, req.OldResource as never);
  return reviewProblems(
    ctx,
    req,
    uses.map(use => ({
      field: use.field,
      attributes: {
        verb: "get",
        group: "",
        resource: "secrets",
        namespace: use.namespace,
        name: use.name,
      },
      denial: () => secretUseProblem(use, req.Request.userInfo),
    })),
  );
}

/**
 * The same for the objects a PackageVariant's injectors or a PackageVariantSet's selectors make
 * the operator read (`get` by name, `list` for a selector), resources named as discovery
 * serves them. Called only when the spec is new or changed (denyProblems admits the rest).
 */
export async function readProblems<T extends KubernetesObject>(
  ctx: OperatorContext,
  req: PeprValidateRequest<T>,
  uses: ReadUse[],
): Promise<string[]> {
  const namespace = req.Raw.metadata?.namespace ?? "";
  const reviews: Review[] = [];
  for (const use of uses) {
    const apiVersion = use.kind.group ? `${use.kind.group}/${use.kind.version}` : use.kind.version;
    // A kind the API server does not serve has no objects to read, nor a resource to ask about
    // (an allowed kind whose CRD comes later: docs/package-variant-sets.md, “Targets”). Any
    // other discovery failure (an API server error, throttling) is thrown: the spec is denied,
    // not admitted unchecked.
    const resource = await ctx.discovery
      .resolveKind(apiVersion, use.kind.kind)
      .then(r => r.plural)
      .catch(error => {
        if (error instanceof NoMatchError) return undefined;
        throw error;
      });
    if (resource === undefined) continue;
    reviews.push({
      field: use.field,
      attributes: {
        verb: use.verb,
        group: use.kind.group,
        resource,
        namespace,
        ...(use.name ? { name: use.name } : {}),
      },
      denial: () => readUseProblem(use, resource, namespace, req.Request.userInfo),
    });
  }
  return reviewProblems(ctx, req, reviews);
}
