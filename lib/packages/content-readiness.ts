import type { Condition } from "../kubernetes/conditions";
import { fileNamesProblem } from "./file-names";
import { PermanentError } from "../controller/permanent-error";
import { CATALOG_FAILURE_REASONS } from "../fn/pipeline";
import { packageLimitProblems, sizedFiles, type GitContentLimits } from "../git/content-limits";

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
