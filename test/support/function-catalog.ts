// Function catalogs for tests, written as an administrator writes catalog.yaml.
import { stringify } from "yaml";
import { BUILTIN_FUNCTIONS } from "../../lib/fn/builtins";
import { CatalogHolder, type CatalogView } from "../../lib/fn/catalog";
import { FUNCTION_CATALOG } from "./e2e-catalog";
import { kubectlOk } from "./kubectl";

export const TEST_ORIGIN = "ConfigMap pepr-system/porch-pepr-functions";

export const newHolder = (): CatalogHolder =>
  new CatalogHolder({ origin: TEST_ORIGIN, builtinNames: Object.keys(BUILTIN_FUNCTIONS) });

/** A holder using the catalog `yaml` (a document or its fields as data); fails the test if refused. */
export function catalogHolder(yaml: string | object): CatalogHolder {
  const holder = newHolder();
  const text = typeof yaml === "string" ? yaml : stringify(yaml);
  const change = holder.update({ "catalog.yaml": text });
  if (change.kind === "rejected") throw new Error(change.rejected.problems.join("; "));
  return holder;
}

/** A catalog running each `exec:` name (or path) of `executables` as the executable it maps to. */
export function execCatalog(
  executables: Record<string, string>,
  limits: { timeout?: string; maxOutputBytes?: number; maxInputBytes?: number } = {},
): CatalogHolder {
  return catalogHolder({
    functions: Object.entries(executables).map(([exec, path]) => ({
      exec,
      runtime: "exec",
      executable: { path, ...limits },
    })),
  });
}

export const execView = (executables: Record<string, string>): CatalogView =>
  execCatalog(executables).current();

/** Applies the administrator's catalog ConfigMap, catalog.yaml being `catalog` (text or fields). */
export function applyFunctionCatalog(catalog: string | object): void {
  kubectlOk(
    ["apply", "-f", "-"],
    JSON.stringify({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: FUNCTION_CATALOG,
      data: { "catalog.yaml": typeof catalog === "string" ? catalog : stringify(catalog) },
    }),
  );
}
