import { Environment } from "@marcbachmann/cel-js";
import { withRegexFunctions } from "./program";

/**
 * The CEL environment of PackageVariantSet templates (docs/package-variant-sets.md,
 * “Variables”).
 * Objects are exposed as their name, namespace, labels and annotations only, so a template
 * can never read a spec or a status (or a Secret's data) from the cluster.
 */
const objectSchema = {
  name: "string",
  namespace: "string",
  labels: "map<string, string>",
  annotations: "map<string, string>",
} as const;

/** `target` of a repository-list target is the pair being unrolled, not an object. */
const repositoryListTargetSchema = { repo: "string", package: "string" } as const;

/** How the target was selected decides what `target` holds. */
export type TargetKind = "repositories" | "selector";

/**
 * Where an expression sits: `downstream.repoExpr` is evaluated before the downstream
 * Repository is loaded, so `repository` does not exist there.
 */
export interface ExpressionScope {
  targetKind: TargetKind;
  withRepository: boolean;
}

const limits = { maxAstNodes: 2000, maxDepth: 50, maxListElements: 200, maxMapEntries: 200 };

function build(scope: ExpressionScope): Environment {
  const env = withRegexFunctions(new Environment({ limits }))
    .registerVariable("repoDefault", "string")
    .registerVariable("packageDefault", "string")
    .registerVariable({ name: "upstream", schema: objectSchema })
    .registerVariable({
      name: "target",
      schema: scope.targetKind === "repositories" ? repositoryListTargetSchema : objectSchema,
    });
  return scope.withRepository
    ? env.registerVariable({ name: "repository", schema: objectSchema })
    : env;
}

const environments = new Map<string, Environment>();

/** One environment per scope, built on first use and shared afterwards. */
export function environmentFor(scope: ExpressionScope): Environment {
  const key = `${scope.targetKind}/${scope.withRepository}`;
  let env = environments.get(key);
  if (!env) {
    env = build(scope);
    environments.set(key, env);
  }
  return env;
}
