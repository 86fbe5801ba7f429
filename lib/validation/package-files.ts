import { DEFAULT_CATALOG_VIEW, execDenial, parsePipeline, type CatalogView } from "../fn";
import { isKptfilePath } from "../kpt/kptfile-name";
import { fileNamesProblem, printableName } from "../packages/file-names";
import { packageSizeProblems } from "../packages/content-readiness";
import { DEFAULT_CONTENT_LIMITS, type GitContentLimits } from "../git/content-limits";

/**
 * What a package's files may not hold, for admission and the controller alike: unsafe file
 * names, more than the git content limits (the sizes a package read from git may have), and
 * Kptfile pipelines naming an `exec` function the function catalog does not run. A Kptfile that
 * does not parse is left to the render, which reports it (reason InvalidKptfile).
 */
export function packageFilesProblems(
  files: Record<string, string>,
  field: string,
  catalog: CatalogView = DEFAULT_CATALOG_VIEW,
  limits: GitContentLimits = DEFAULT_CONTENT_LIMITS,
): string[] {
  const problems: string[] = [];
  const names = fileNamesProblem(Object.keys(files), field);
  if (names) problems.push(names);
  problems.push(...packageSizeProblems(files, field, limits));
  for (const [path, text] of Object.entries(files)) {
    if (!isKptfilePath(path)) continue;
    let pipeline;
    try {
      pipeline = parsePipeline(text, path);
    } catch {
      continue;
    }
    for (const stage of ["mutators", "validators"] as const) {
      pipeline[stage].forEach((fn, i) => {
        const denial = fn.exec ? execDenial(catalog, fn.exec) : undefined;
        if (denial)
          problems.push(`${field}[${printableName(path)}] pipeline.${stage}[${i}]: ${denial}`);
      });
    }
  }
  return problems;
}
