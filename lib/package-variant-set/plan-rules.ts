// Admission rules of spec.plan (docs/package-variant-sets.md, “A plan before anything changes”).
import type { PackageVariantSetSpec } from "../../crd-types";
import { parseRevision } from "../validation/revision";

/** A plan id as status.plan.id writes it: 16 hex digits of a SHA-256. */
const PLAN_ID = /^[0-9a-f]{16}$/;

/**
 * Every problem of spec.plan. Plan mode needs a fixed upstream revision: with `latest` each
 * PackageVariant follows a newly published upstream revision by itself, so its upgrade would
 * happen before any plan showing it could be approved.
 */
export function planSpecProblems(spec: PackageVariantSetSpec | undefined): string[] {
  const plan = spec?.plan;
  if (!plan) return [];
  const problems: string[] = [];
  const upstream = spec?.upstream;
  const fixed =
    Boolean(upstream?.workspaceName) || parseRevision(upstream?.revision).kind === "number";
  if (plan.mode === "Plan" && !fixed)
    problems.push(
      `spec.plan.mode Plan needs spec.upstream.revision to be a revision number (or spec.upstream.workspaceName): with ${JSON.stringify(upstream?.revision ?? "latest")} each PackageVariant follows a newly published upstream revision by itself, before a plan could be approved`,
    );
  if (
    plan.approvedPlan !== undefined &&
    plan.approvedPlan !== "" &&
    !PLAN_ID.test(plan.approvedPlan)
  )
    problems.push(
      `spec.plan.approvedPlan ${JSON.stringify(plan.approvedPlan)} is not a plan id (16 hexadecimal digits, copied from status.plan.id)`,
    );
  return problems;
}
