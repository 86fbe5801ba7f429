import type { Condition, ConditionInput } from "../kubernetes/conditions";
import { fileNamesProblem } from "./file-names";

/** A condition as compared: what it says, not when it was last written. */
export type ConditionText = Pick<Condition, "status" | "reason" | "message">;
import { PermanentError } from "../controller/permanent-error";
import { CATALOG_FAILURE_REASONS } from "../fn/pipeline";
import { packageLimitProblems, sizedFiles, type GitContentLimits } from "../git/content-limits";

/**
 * Rendered reasons for files git could not take at all (not a failed function, whose last good
 * content stays committed): the revision is not Ready until its files change.
 */
export const UNCOMMITTABLE_REASONS = [
  "UnsafeFileNames",
  "InvalidContent",
  "ContentTooLarge",
] as const;

/**
 * The Ready condition a Draft or Proposed revision gets while its latest files could not be
 * committed (Rendered=False for one of UNCOMMITTABLE_REASONS), or undefined when nothing blocks.
 */
export function blockedReady(
  lifecycle: string | undefined,
  rendered: ConditionText | undefined,
): ConditionInput | undefined {
  if (lifecycle !== "Draft" && lifecycle !== "Proposed") return undefined;
  if (rendered?.status !== "False") return undefined;
  if (!(UNCOMMITTABLE_REASONS as readonly string[]).includes(rendered.reason)) return undefined;
  return { type: "Ready", status: "False", reason: rendered.reason, message: rendered.message };
}

/**
 * The Ready condition of a revision git holds at `lifecycle`: blocked while its files could not
 * be committed (see blockedReady), True otherwise. The source step, which leaves a new draft
 * rendered, and the lifecycle step, which moves it, state it alike.
 */
export function readyInGit(lifecycle: string, rendered: ConditionText | undefined): ConditionInput {
  return (
    blockedReady(lifecycle, rendered) ?? {
      type: "Ready",
      status: "True",
      reason: "Ready",
      message: `${lifecycle} in git`,
    }
  );
}

/** Throws PermanentError (reason UnsafeFileNames) unless every file name is safe. */
export function assertSafeFileNames(files: Record<string, string>, what: string): void {
  const problem = fileNamesProblem(Object.keys(files), what);
  if (problem) throw new PermanentError("UnsafeFileNames", problem);
}

/**
 * Every git content limit `files` break (each file over the per-file limit, the count, the sum),
 * as `<field>: <problem>`: the limits a package read from git is held to, so that nothing is
 * written that the operator would refuse to read back.
 */
export function packageSizeProblems(
  files: Record<string, string>,
  field: string,
  limits: GitContentLimits,
): string[] {
  return packageLimitProblems(sizedFiles(files), limits).map(problem => `${field}: ${problem}`);
}

/** Throws PermanentError (reason ContentTooLarge) naming every limit `files` break. */
export function assertWithinContentLimits(
  files: Record<string, string>,
  what: string,
  limits: GitContentLimits,
): void {
  const problems = packageSizeProblems(files, what, limits);
  if (problems.length > 0) throw new PermanentError("ContentTooLarge", problems.join("; "));
}

/**
 * Whether the last render failed for want of a function the function catalog did not run
 * (ExecDenied, FunctionUnavailable): a change of the catalog may heal it without an edit.
 */
export function awaitsFunctionCatalog(rendered: Condition | undefined): boolean {
  return (
    rendered?.status === "False" &&
    (CATALOG_FAILURE_REASONS as readonly string[]).includes(rendered.reason)
  );
}
