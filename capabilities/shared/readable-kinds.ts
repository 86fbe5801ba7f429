import {
  DEFAULT_READABLE_KINDS,
  formatKind,
  kindOf,
  parseReadableKinds,
  READABLE_KINDS_VARIABLE,
  readableKindProblem,
  ReadableKindPolicy,
} from "../../lib/validation";
import { errorMessage } from "../../lib/errors";
import type { OperatorContext } from "../context";

/**
 * The admin's allow-list of kinds PackageVariants inject and PackageVariantSets select; the
 * operator's RBAC grants get/list/watch on exactly these. A malformed value stops the module
 * at start-up rather than reading more (or less) than the admin meant.
 */
export const readableKinds = parseReadableKinds(
  process.env[READABLE_KINDS_VARIABLE] ?? DEFAULT_READABLE_KINDS,
);

/**
 * The allow-list with the kinds discovery serves as cluster-scoped (discovery is cached). A
 * kind discovery does not serve yet is left to the caller (NoMatchError: see
 * docs/package-variant-sets.md, “Targets”).
 */
export async function readableKindPolicy(ctx: OperatorContext): Promise<ReadableKindPolicy> {
  const clusterScoped = new Set<string>();
  for (const k of readableKinds) {
    const apiVersion = k.group ? `${k.group}/${k.version}` : k.version;
    try {
      if (!(await ctx.discovery.resolveKind(apiVersion, k.kind)).namespaced)
        clusterScoped.add(formatKind(k));
    } catch (error) {
      ctx.log.debug(`readable kind ${formatKind(k)} not resolved: ${errorMessage(error)}`);
    }
  }
  return { allowed: readableKinds, clusterScoped };
}

/** Why `apiVersion/kind` may not be read, or undefined; `namespaced` as discovery says. */
export function unreadableKind(
  path: string,
  apiVersion: string,
  kindName: string,
  namespaced: boolean,
): string | undefined {
  const k = kindOf(apiVersion, kindName);
  const clusterScoped = new Set(namespaced ? [] : [formatKind(k)]);
  return readableKindProblem(path, k, { allowed: readableKinds, clusterScoped });
}
