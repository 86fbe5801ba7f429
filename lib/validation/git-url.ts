import type { PackageRevision, Repository } from "../../crd-types";
import { gitUrlProblem, type GitUrlPolicy } from "../git/url-policy";

/** A Repository whose git URL the operator must not contact is refused when applied. */
export function validateRepository(
  spec: Repository["spec"] | undefined,
  policy: GitUrlPolicy,
): string[] {
  const repo = spec?.git?.repo;
  if (repo === undefined) return [];
  const problem = gitUrlProblem(repo, policy);
  return problem ? [`spec.git.repo: ${problem}`] : [];
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
