import { DEFAULT_CATALOG_VIEW, execDenial, parsePipeline, type CatalogView } from "../fn";
import { isKptfilePath } from "../kpt/kptfile-name";
import { fileNamesProblem, printableName } from "../packages/file-names";
import { packageSizeProblems } from "../packages/content-readiness";
import { DEFAULT_CONTENT_LIMITS, type GitContentLimits } from "../git/content-limits";
import { DEFAULT_RENDER_LIMITS, tooManyFunctionsProblem } from "../fn/render-limits";

/**
 * What a package's files may not hold, for admission and the controller alike: unsafe file
 * names, more than the git content limits (the sizes a package read from git may have), Kptfile
 * pipelines listing more functions together than a render runs (`maxFunctions`), and ones
 * naming an `exec` function the function catalog does not run. A Kptfile that does not parse is
 * left to the render, which reports it (reason InvalidKptfile). Over the size limits, only the
 * names and sizes are checked.
 */
export function packageFilesProblems(
  files: Record<string, string>,
  field: string,
  catalog: CatalogView = DEFAULT_CATALOG_VIEW,
  limits: GitContentLimits = DEFAULT_CONTENT_LIMITS,
  maxFunctions: number = DEFAULT_RENDER_LIMITS.maxFunctions,
): string[] {
  const problems: string[] = [];
  let functions = 0;
  const names = fileNamesProblem(Object.keys(files), field);
  if (names) problems.push(names);
  const sizes = packageSizeProblems(files, field, limits);
  // Files over the limits are refused whatever they hold: parsing them first would let each
  // request hold the webhook's event loop for as long as the largest YAML takes to parse.
  if (sizes.length > 0) return [...problems, ...sizes];
  for (const [path, text] of Object.entries(files)) {
    if (!isKptfilePath(path)) continue;
    let pipeline;
    try {
      pipeline = parsePipeline(text, path);
    } catch {
      continue;
    }
    functions += pipeline.mutators.length + pipeline.validators.length;
    for (const stage of ["mutators", "validators"] as const) {
      pipeline[stage].forEach((fn, i) => {
        const denial = fn.exec ? execDenial(catalog, fn.exec) : undefined;
        if (denial)
          problems.push(`${field}[${printableName(path)}] pipeline.${stage}[${i}]: ${denial}`);
      });
    }
  }
  const tooMany = tooManyFunctionsProblem(functions, maxFunctions);
  if (tooMany) problems.push(`${field}: ${tooMany}`);
  return problems;
}
