// Shared fixtures for the function runtime tests: a Kptfile around a pipeline and a
// one-function render.
import { renderPackage, type RenderOptions, type RenderOutput } from "../../../lib/fn/render";
import type { PackageFiles } from "../../../lib/fn/types";

/** A Kptfile whose `pipeline:` is the given YAML block (indented by the caller as under `pipeline:`). */
export function kptfile(pipeline: string, name = "example"): string {
  return `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n  annotations:\n    config.kubernetes.io/local-config: "true"\npipeline:\n${pipeline}`;
}

/** Renders `files` plus a root Kptfile running the single mutator `fn` (YAML of one list entry). */
export function renderMutator(
  fn: string,
  files: PackageFiles,
  options?: RenderOptions,
): Promise<RenderOutput> {
  const entry = fn
    .trim()
    .split("\n")
    .map((line, i) => (i === 0 ? `    - ${line}` : `      ${line}`))
    .join("\n");
  return renderPackage({ Kptfile: kptfile(`  mutators:\n${entry}\n`), ...files }, options);
}

/** The messages of all results of the first function run. */
export function messages(output: RenderOutput): string[] {
  return (output.results.items[0]?.results ?? []).map(r => r.message);
}
