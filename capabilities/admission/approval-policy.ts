import { isDeepStrictEqual } from "node:util";
import { PeprMutateRequest, PeprValidateRequest, type kind } from "pepr";
import type {
  PackageRevision,
  PackageRevisionResources,
  PackageVariant,
  PackageVariantSet,
} from "../../crd-types";
import { isPublished } from "../../lib/git/types";
import {
  DELAY_ANNOTATION,
  GRANT_ANNOTATION,
  POLICY_ANNOTATION,
  grantAfter,
  grantDenial,
  grantProblems,
  policyGrantor,
  policyValueProblems,
  type GrantDecision,
} from "../../lib/packages/approval-policy";
import { errorMessage } from "../../lib/errors";
import type { OperatorContext } from "../context";
import { approvalRight, requestContext, reviewProblems } from "./requests";

type Annotations = Record<string, string> | undefined;
type Policed = PackageRevision | PackageVariant | PackageVariantSet;

/**
 * One map that may carry an approval policy: a revision's metadata.annotations, a variant's
 * spec.annotations, each set target's template.annotations (with the static keys of its
 * annotationExprs, which override them). `view` is what the policy reads; `stamp` writes the
 * grant where it travels on: set → variant → draft.
 */
interface Place {
  field: string;
  view: (obj: Policed | undefined) => Annotations;
  stamp: (obj: Policed, grant: string | undefined) => void;
}

/** Writes or removes the grant in `map`; `make` makes the map, only to write (an update that
 * adds an empty map would change a spec nobody changed). */
function put(
  map: Record<string, string> | undefined,
  grant: string | undefined,
  make: () => Record<string, string>,
): void {
  if (grant !== undefined) (map ?? make())[GRANT_ANNOTATION] = grant;
  else if (map) delete map[GRANT_ANNOTATION];
}

type Target = NonNullable<NonNullable<PackageVariantSet["spec"]>["targets"]>[number];

const EXPRESSION = "<valueExpr>";

/**
 * A target's annotations with the fixed keys of its expressions, which override them: a fixed
 * value as is, a computed one as a marker (its PackageVariant's admission checks the value).
 */
function targetView(target: Target | undefined): Annotations {
  if (!target?.template) return undefined;
  const view: Record<string, string> = { ...(target.template.annotations ?? {}) };
  for (const e of target.template.annotationExprs ?? [])
    if (e.key !== undefined) view[e.key] = e.value ?? EXPRESSION;
  return view;
}

/** The values worth checking: not the markers of computed ones. */
function plainValues(view: Annotations): Annotations {
  return view && Object.fromEntries(Object.entries(view).filter(([, v]) => v !== EXPRESSION));
}

function placesOf(kindName: string, obj: Policed): Place[] {
  if (kindName === "PackageRevision")
    return [
      {
        field: "metadata.annotations",
        view: o => o?.metadata?.annotations,
        stamp: (o, grant) =>
          put(o.metadata?.annotations, grant, () => ((o.metadata ??= {}).annotations ??= {})),
      },
    ];
  if (kindName === "PackageVariant")
    return [
      {
        field: "spec.annotations",
        view: o => (o as PackageVariant | undefined)?.spec?.annotations,
        stamp: (o, grant) => {
          const pv = o as PackageVariant;
          put(pv.spec?.annotations, grant, () => ((pv.spec ??= {}).annotations ??= {}));
        },
      },
    ];
  const targets = (obj as PackageVariantSet).spec?.targets ?? [];
  return targets.map((_, i) => ({
    field: `spec.targets[${i}].template.annotations`,
    view: o => targetView((o as PackageVariantSet | undefined)?.spec?.targets?.[i]),
    stamp: (o, grant) => {
      const target = (o as PackageVariantSet).spec?.targets?.[i];
      if (target)
        put(
          target.template?.annotations,
          grant,
          () => ((target.template ??= {}).annotations ??= {}),
        );
    },
  }));
}

/**
 * What a request may not change under a granted policy without the approval right: a variant's
 * or set's spec apart from the grants admission writes, a revision's spec apart from its
 * lifecycle (readiness gates hold an approval back).
 */
function steeredPart(kindName: string, obj: Policed | undefined): unknown {
  if (!obj) return undefined;
  if (kindName === "PackageRevision") {
    const rest = { ...(obj as PackageRevision).spec };
    delete rest.lifecycle;
    return rest;
  }
  const copy = structuredClone(obj) as Policed;
  for (const place of placesOf(kindName, copy)) place.stamp(copy, undefined);
  return copy.spec;
}

type Request<T extends Policed> = PeprMutateRequest<T> | PeprValidateRequest<T>;

/** Each place's grant after the request (lib/packages/approval-policy.ts, grantAfter). */
async function decisions<T extends Policed>(
  ctx: OperatorContext,
  req: Request<T>,
): Promise<{ place: Place; decision: GrantDecision }[]> {
  const kindName = req.Request.kind.kind;
  const old = req.OldResource as T | undefined;
  const { byOperator } = await requestContext(ctx, req);
  // Changing what a policy-carrying variant or set makes steers what is auto-approved.
  const steers = !isDeepStrictEqual(steeredPart(kindName, old), steeredPart(kindName, req.Raw));
  return placesOf(kindName, req.Raw).map(place => ({
    place,
    decision: grantAfter({
      old: place.view(old),
      next: place.view(req.Raw),
      username: req.Request.userInfo?.username,
      byOperator,
      steers,
    }),
  }));
}

/**
 * Mutating step: writes each grant from the authenticated user (or the stored one), whatever
 * the client sent. Never throws: a failure leaves the object as sent, and the validating step
 * refuses a grant that is not what it wants.
 */
export async function stampPolicyGrants<T extends Policed>(
  ctx: OperatorContext,
  req: PeprMutateRequest<T>,
): Promise<void> {
  try {
    for (const { place, decision } of await decisions(ctx, req))
      place.stamp(req.Raw, decision.grant);
  } catch (error) {
    ctx.log.warn(`approval policy grant not stamped: ${errorMessage(error)}`);
  }
}

/**
 * Validating step: policy values well formed, grants exactly what the mutating step writes, and
 * the approval right of a user who sets, changes or steers a policy (a SubjectAccessReview for
 * `update packagerevisions/approval`, on the revision or namespace-wide).
 */
export async function policyGrantProblems<T extends Policed>(
  ctx: OperatorContext,
  req: PeprValidateRequest<T>,
): Promise<string[]> {
  const old = req.OldResource as T | undefined;
  const namespace = req.Raw.metadata?.namespace ?? "";
  const problems: string[] = [];
  let review: string | undefined;
  for (const { place, decision } of await decisions(ctx, req)) {
    const next = place.view(req.Raw);
    if (!isDeepStrictEqual(policyKeys(place.view(old)), policyKeys(next)))
      problems.push(...policyValueProblems(plainValues(next), place.field));
    problems.push(...grantProblems(decision.grant, next, place.field));
    if (decision.review) review ??= place.field;
  }
  if (problems.length > 0 || review === undefined) return problems;
  const name = req.Request.kind.kind === "PackageRevision" ? req.Raw.metadata?.name : undefined;
  return approvalRightProblems(ctx, req, namespace, name, review);
}

/** The SubjectAccessReview for `update packagerevisions/approval`, denied naming `field`. */
function approvalRightProblems<T extends kind.GenericKind>(
  ctx: OperatorContext,
  req: PeprValidateRequest<T>,
  namespace: string,
  name: string | undefined,
  field: string,
): Promise<string[]> {
  return reviewProblems(ctx, req, [
    {
      field,
      attributes: approvalRight(namespace, name),
      denial: () => grantDenial(req.Request.userInfo?.username, namespace, field),
    },
  ]);
}

/**
 * Editing the files of a revision a granted policy will approve is approving them: a user's
 * edit needs the approval right (or the policy removed from the revision first, which does not).
 */
export async function policyFilesProblems(
  ctx: OperatorContext,
  req: PeprValidateRequest<PackageRevisionResources>,
  owner: PackageRevision | undefined,
): Promise<string[]> {
  const old = req.OldResource as PackageRevisionResources | undefined;
  if (!owner || !old || isPublished(owner.spec?.lifecycle)) return [];
  if (!policyGrantor(owner.metadata?.annotations)) return [];
  if (isDeepStrictEqual(old.spec?.resources, req.Raw.spec?.resources)) return [];
  const namespace = req.Raw.metadata?.namespace ?? "";
  const problems = await approvalRightProblems(
    ctx,
    req,
    namespace,
    owner.metadata?.name,
    "spec.resources",
  );
  return problems.map(
    p =>
      `${p}: revision ${JSON.stringify(owner.metadata?.name)} is under approval policy ${JSON.stringify(owner.metadata?.annotations?.[POLICY_ANNOTATION])}, which publishes what it holds (remove its ${POLICY_ANNOTATION} annotation to edit it without the right)`,
  );
}

function policyKeys(view: Annotations): unknown[] {
  return [view?.[POLICY_ANNOTATION], view?.[DELAY_ANNOTATION]];
}
