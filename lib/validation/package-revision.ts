import { isDeepStrictEqual } from "node:util";
import type { PackageRevision, PackageRevisionResources } from "../../crd-types";
import { DEFAULT_CATALOG_VIEW, type CatalogView } from "../fn";
import { isPublished, type Lifecycle } from "../git/types";
import { transitionProblem, unmetReadinessGates } from "../package-revision/lifecycle";
import { packageFilesProblems } from "./package-files";
import { DEFAULT_CONTENT_LIMITS, type GitContentLimits } from "../git/content-limits";
import { comparableSource } from "./secret-refs";
import { sourceMutationsProblem } from "../package-variant/source-mutations";

export interface AdmissionContext {
  operation: string;
  /**
   * The request authenticates as the operator itself (see requester.ts): mirroring a Published
   * revision from git is not a user creating one, refreshing a published revision's files is
   * not an edit.
   */
  byOperator: boolean;
}

const IMMUTABLE = ["packageName", "repository", "workspaceName", "source"] as const;

type Source = NonNullable<PackageRevision["spec"]>["source"];

/**
 * spec.source.init.subpackage is refused rather than ignored (docs/package-revisions.md,
 * “Source”): Porch's init once made only `<subpackage>/Kptfile` and README, a package without
 * a root Kptfile, which render, clone and upgrade need; the current Porch ignores the field.
 */
export function initSubpackageProblem(source: Source): string | undefined {
  const subpackage = source?.init?.subpackage;
  if (!subpackage) return undefined;
  return (
    `spec.source.init.subpackage ("${subpackage}") is not supported: init creates the package ` +
    `itself; create it without subpackage, then add ${subpackage}/Kptfile through its ` +
    "PackageRevisionResources"
  );
}

/**
 * What admission refuses for a PackageRevision (kptdev/porch#918): a new revision to create
 * that starts Published, a lifecycle move that cannot be done, publishing with unmet
 * readiness gates, changes to the fields that name the revision or made it, and the
 * annotation only the operator's variant drafts carry (lib/package-variant/source-mutations.ts).
 */
export function validatePackageRevision(
  pr: PackageRevision,
  old: PackageRevision | undefined,
  ctx: AdmissionContext,
): string[] {
  if (ctx.byOperator || pr.metadata?.deletionTimestamp) return [];
  const problems: string[] = [];
  const lifecycle = (pr.spec?.lifecycle ?? "Draft") as Lifecycle;
  // With a source or without one (an object standing for what git holds): only the operator's
  // sync creates revisions as published, so no new object publishes without an approval.
  if (ctx.operation === "CREATE" && isPublished(lifecycle)) {
    problems.push(
      `spec.lifecycle: a new package revision starts as Draft or Proposed, not ${lifecycle}`,
    );
  }
  const subpackage = ctx.operation === "CREATE" && initSubpackageProblem(pr.spec?.source);
  if (subpackage) problems.push(subpackage);
  // It chooses the variant whose injected objects the source copies into the files.
  const mutations = sourceMutationsProblem(pr.metadata?.annotations, old?.metadata?.annotations);
  if (mutations) problems.push(mutations);
  if (old) {
    for (const field of IMMUTABLE) {
      const [was, is] =
        field === "source"
          ? [comparableSource(old.spec?.source), comparableSource(pr.spec?.source)]
          : [old.spec?.[field], pr.spec?.[field]];
      if (!isDeepStrictEqual(was, is)) problems.push(`spec.${field} is immutable`);
    }
    const from = (old.spec?.lifecycle ?? "Draft") as Lifecycle;
    const problem = transitionProblem(from, lifecycle);
    if (problem) problems.push(`spec.lifecycle: ${problem}`);
  }
  problems.push(...droppedGateProblems(pr, old));
  const publishing = lifecycle === "Published" && old?.spec?.lifecycle !== "Published";
  const unmet = publishing ? unmetReadinessGates(storedReadiness(pr, old)) : [];
  if (unmet.length > 0)
    problems.push(`spec.lifecycle: readiness gates not met: ${unmet.join(", ")}`);
  return problems;
}

const gateTypes = (pr: PackageRevision | undefined) =>
  (pr?.spec?.readinessGates ?? []).map(g => g.conditionType);

/**
 * The stored gates come from the Kptfile (the operator copies info.readinessGates into the
 * spec), so a request may add gates but not drop one: it is removed from the Kptfile.
 */
function droppedGateProblems(pr: PackageRevision, old: PackageRevision | undefined): string[] {
  const kept = new Set(gateTypes(pr));
  const dropped = gateTypes(old).filter(type => !kept.has(type));
  return dropped.length === 0
    ? []
    : [
        `spec.readinessGates: ${dropped.join(", ")} cannot be removed here: the revision's Kptfile declares them (remove them from its info.readinessGates)`,
      ];
}

/**
 * What publishing is judged on: the stored object's gates and conditions (plus any gate the
 * request adds), never gates or conditions the same request removes or sets.
 */
function storedReadiness(pr: PackageRevision, old: PackageRevision | undefined) {
  const stored = old ?? pr;
  const types = [...new Set([...gateTypes(old), ...gateTypes(pr)])];
  return {
    readinessGates: types.map(conditionType => ({ conditionType })),
    conditions: stored.status?.conditions,
    packageConditions: stored.status?.packageConditions,
  };
}

/**
 * The files of a Published (or DeletionProposed) revision are read-only, and those of a Proposed
 * one cannot change while it is under review; new files must have safe names, stay within the
 * git content limits (`limits`, the settings the store reads with) and may name only the exec
 * functions the function catalog runs. The controllers'
 * own writes are checked by the controller before they reach git.
 */
export function validatePackageRevisionResources(
  prr: PackageRevisionResources,
  old: PackageRevisionResources | undefined,
  ownerLifecycle: string | undefined,
  ctx: AdmissionContext,
  catalog: CatalogView = DEFAULT_CATALOG_VIEW,
  limits: GitContentLimits = DEFAULT_CONTENT_LIMITS,
  maxFunctions?: number,
): string[] {
  if (ctx.byOperator) return [];
  if (old && isDeepStrictEqual(old.spec?.resources, prr.spec?.resources)) return [];
  if (old && isPublished(ownerLifecycle)) {
    return [
      `spec.resources: the files of a ${ownerLifecycle} revision are read-only; create a new draft from it (spec.source.copyFrom) and edit that`,
    ];
  }
  // Under review: an approval approves what the reviewers saw (Porch refuses it as well; the
  // PackageVariant controller's own updates of a proposal are the operator's).
  if (old && ownerLifecycle === "Proposed") {
    return [
      "spec.resources: cannot update a package revision with lifecycle value Proposed; package must be Draft (move it back to Draft to edit it)",
    ];
  }
  return packageFilesProblems(
    prr.spec?.resources ?? {},
    "spec.resources",
    catalog,
    limits,
    maxFunctions,
  );
}
