import type { PackageVariantSetSpec, PackageVariantSpec } from "../../crd-types";
import type { RequestUser } from "./requester";
import { formatKind, kindOf, type ReadableKind, type ReadableKindPolicy } from "./readable-kinds";

/**
 * An object (or, without a name, every object of a kind) that the operator reads with its own
 * rights on behalf of whoever applied a PackageVariant or PackageVariantSet: `get` for a named
 * object, `list` for a selector. The requester must hold that verb themselves.
 */
export interface ReadUse {
  field: string;
  verb: "get" | "list";
  kind: ReadableKind;
  /** Absent: any object of the kind (a selector, or a name computed later by CEL). */
  name?: string;
}

const REPOSITORY: ReadableKind = {
  group: "config.porch.kpt.dev",
  version: "v1alpha1",
  kind: "Repository",
};

interface InjectorLike {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
}

/**
 * Every readable namespaced kind an injector may fetch (it names its kind only partly, so each
 * kind that fits counts): `get` on its name, or on any name when the name is computed.
 */
function injectorReads(
  injectors: readonly InjectorLike[] | undefined,
  path: string,
  policy: ReadableKindPolicy,
): ReadUse[] {
  return (injectors ?? []).flatMap((injector, i) =>
    policy.allowed
      .filter(
        k =>
          !policy.clusterScoped.has(formatKind(k)) &&
          (injector.group === undefined || k.group === injector.group) &&
          (!injector.version || k.version === injector.version) &&
          (!injector.kind || k.kind === injector.kind),
      )
      .map(kind => ({
        field: `${path}[${i}]`,
        verb: "get" as const,
        kind,
        ...(injector.name ? { name: injector.name } : {}),
      })),
  );
}

/** The objects a PackageVariant's injectors make the operator read. */
export function packageVariantReads(
  spec: PackageVariantSpec | undefined,
  policy: ReadableKindPolicy,
): ReadUse[] {
  return injectorReads(spec?.injectors, "spec.injectors", policy);
}

/**
 * The objects a PackageVariantSet makes the operator read: the kind its objectSelector lists
 * (the objects' labels and annotations reach the templates), the Repositories its
 * repositorySelector lists or its repositories name, and its templates' injectors.
 */
export function packageVariantSetReads(
  spec: PackageVariantSetSpec | undefined,
  policy: ReadableKindPolicy,
): ReadUse[] {
  return (spec?.targets ?? []).flatMap((target, i) => {
    const path = `spec.targets[${i}]`;
    const reads: ReadUse[] = [];
    const selector = target.objectSelector;
    if (selector?.apiVersion && selector.kind) {
      const kind = kindOf(selector.apiVersion, selector.kind);
      reads.push({ field: `${path}.objectSelector`, verb: "list", kind });
    }
    if (target.repositorySelector)
      reads.push({ field: `${path}.repositorySelector`, verb: "list", kind: REPOSITORY });
    (target.repositories ?? []).forEach((repo, j) => {
      if (repo.name)
        reads.push({
          field: `${path}.repositories[${j}]`,
          verb: "get",
          kind: REPOSITORY,
          name: repo.name,
        });
    });
    reads.push(...injectorReads(target.template?.injectors, `${path}.template.injectors`, policy));
    return reads;
  });
}

/**
 * The denial for an object the requester may not read; the operator would read it for them.
 * `resource` is the kind's resource as discovery names it (`configmaps`).
 */
export function readUseProblem(
  use: ReadUse,
  resource: string,
  namespace: string,
  user: RequestUser,
): string {
  const qualified = use.kind.group ? `${resource}.${use.kind.group}` : resource;
  const what = use.name ? `${qualified} ${JSON.stringify(use.name)}` : qualified;
  return `${use.field}: ${JSON.stringify(user.username ?? "")} may not ${use.verb} ${what} in namespace ${JSON.stringify(namespace)}; the operator reads for an object only what whoever applies it may ${use.verb} themselves`;
}
