import { fileNameProblem } from "../packages/file-names";
import type { PackageRevision, Repository } from "../../crd-types";
import { gitUrlProblem, type GitUrlPolicy } from "../git/url-policy";
import { identityProblem } from "../git/identity";
import { invalid } from "./field";

/** Commit identities are data written into commit headers (see lib/git/identity.ts). */
function identityProblems(git: NonNullable<Repository["spec"]>["git"]): string[] {
  return (["author", "email"] as const).flatMap(field => {
    const value = git?.[field];
    const problem = typeof value === "string" ? identityProblem(value) : undefined;
    return problem ? [invalid(`spec.git.${field}`, value, problem)] : [];
  });
}

/**
 * A Repository whose git URL the operator must not contact, or whose commit author could not
 * be written as one header line, is refused when applied.
 */
export function validateRepository(
  spec: Repository["spec"] | undefined,
  policy: GitUrlPolicy,
): string[] {
  const problems: string[] = [];
  const repo = spec?.git?.repo;
  const problem = repo === undefined ? undefined : gitUrlProblem(repo, policy);
  if (problem) problems.push(`spec.git.repo: ${problem}`);
  // Every package path starts with the directory: it is held to the package file-name rule.
  const directory = (spec?.git?.directory ?? "").replace(/^\/+|\/+$/g, "");
  const directoryProblem = directory === "" ? undefined : fileNameProblem(directory);
  if (directoryProblem) problems.push(`spec.git.directory ${directoryProblem}`);
  problems.push(...identityProblems(spec?.git));
  return problems;
}

/** The same rule for a raw git clone source (spec.source.cloneFrom.git.repo). */
export function cloneSourceUrlProblems(
  spec: PackageRevision["spec"] | undefined,
  policy: GitUrlPolicy,
): string[] {
  const repo = spec?.source?.cloneFrom?.git?.repo;
  if (repo === undefined) return [];
  const problem = gitUrlProblem(repo, policy);
  return problem ? [`spec.source.cloneFrom.git.repo: ${problem}`] : [];
}
