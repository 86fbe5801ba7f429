import type { PackageVariantSetSpec, PackageVariantSpec } from "../../crd-types";
import { invalid } from "./field";
import { pathSegmentNameProblem } from "./kubernetes-names";

/** A group/version/kind the admin lets PackageVariantSets select and PackageVariants inject. */
export interface ReadableKind {
  /** "" for the core group. */
  group: string;
  version: string;
  kind: string;
}

/**
 * The kinds PackageVariants may inject and PackageVariantSets may select, and those of them
 * discovery says are cluster-scoped (never readable: a tenant's objects live in its namespace).
 */
export interface ReadableKindPolicy {
  allowed: readonly ReadableKind[];
  /** formatKind() of every allowed kind discovery serves as cluster-scoped. */
  clusterScoped: ReadonlySet<string>;
}

/**
 * ConfigMaps (the usual injection source) and Repositories (what a repositorySelector selects,
 * so an objectSelector over them adds nothing the operator does not read already). The other
 * kinds of this module are left out: a PackageRevisionResources holds another package's files,
 * and selecting PackageVariants or PackageVariantSets would let automation feed on itself.
 */
export const DEFAULT_READABLE_KINDS = "v1/ConfigMap,config.porch.kpt.dev/v1alpha1/Repository";

export const READABLE_KINDS_VARIABLE = "PORCH_PEPR_READABLE_KINDS";

export const formatKind = (k: ReadableKind): string =>
  k.group ? `${k.group}/${k.version}/${k.kind}` : `${k.version}/${k.kind}`;

/** `v1/ConfigMap,example.com/v1/Thing` → kinds; throws on an entry of another shape. */
export function parseReadableKinds(text: string): ReadableKind[] {
  const kinds: ReadableKind[] = [];
  for (const entry of text.split(",").map(e => e.trim())) {
    if (entry === "") continue;
    const parts = entry.split("/");
    if (parts.some(p => p === "") || (parts.length !== 2 && parts.length !== 3)) {
      throw new Error(
        `${READABLE_KINDS_VARIABLE}: "${entry}" is not version/Kind (core group) or group/version/Kind`,
      );
    }
    const [group, version, kind] = parts.length === 2 ? ["", ...parts] : parts;
    kinds.push({ group, version, kind });
  }
  return kinds;
}

export function kindOf(apiVersion: string, kind: string): ReadableKind {
  const slash = apiVersion.indexOf("/");
  return slash < 0
    ? { group: "", version: apiVersion, kind }
    : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), kind };
}

const allowedList = (policy: ReadableKindPolicy) =>
  policy.allowed
    .filter(k => !policy.clusterScoped.has(formatKind(k)))
    .map(formatKind)
    .join(", ") || "none";

const CLUSTER_SCOPED =
  "is cluster-scoped; only namespaced kinds are read, in the object's own namespace";

/**
 * Why one exact kind may not be read (selected by an objectSelector, or fetched for an
 * injection point), or undefined when it may.
 */
export function readableKindProblem(
  path: string,
  k: ReadableKind,
  policy: ReadableKindPolicy,
): string | undefined {
  const key = formatKind(k);
  if (policy.clusterScoped.has(key)) return `${path}: ${key} ${CLUSTER_SCOPED}`;
  if (policy.allowed.some(a => formatKind(a) === key)) return undefined;
  return `${path}: ${key} is not a readable kind; allowed kinds: ${allowedList(policy)}`;
}

interface InjectorPattern {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
}

/**
 * An injector names a kind only partly (each of group, version, kind may be omitted, as
 * injectorApplies reads them): it is refused when no readable namespaced kind fits it. The
 * kind actually fetched comes from the package's injection point and is checked again then.
 */
function injectorProblem(
  path: string,
  injector: InjectorPattern,
  policy: ReadableKindPolicy,
): string | undefined {
  const fits = policy.allowed.filter(
    k =>
      (injector.group === undefined || k.group === injector.group) &&
      (!injector.version || k.version === injector.version) &&
      (!injector.kind || k.kind === injector.kind),
  );
  if (fits.some(k => !policy.clusterScoped.has(formatKind(k)))) return undefined;
  const named = [
    injector.group !== undefined && `group ${JSON.stringify(injector.group)}`,
    injector.version && `version ${JSON.stringify(injector.version)}`,
    injector.kind && `kind ${JSON.stringify(injector.kind)}`,
  ].filter(Boolean);
  if (fits.length > 0) return `${path}: ${fits.map(formatKind).join(", ")} ${CLUSTER_SCOPED}`;
  return `${path} (${named.join(", ")}) matches no readable kind; allowed kinds: ${allowedList(policy)}`;
}

function injectorsProblems(
  injectors: readonly InjectorPattern[] | undefined,
  path: string,
  policy: ReadableKindPolicy,
): string[] {
  return (injectors ?? []).flatMap((injector, i) => {
    const at = `${path}[${i}]`;
    const nameProblem = injector.name ? pathSegmentNameProblem(injector.name) : undefined;
    return [
      ...(nameProblem ? [invalid(`${at}.name`, injector.name, nameProblem)] : []),
      injectorProblem(at, injector, policy),
    ].filter((p): p is string => p !== undefined);
  });
}

/** PackageVariant spec.injectors outside the policy. */
export function packageVariantKindProblems(
  spec: PackageVariantSpec | undefined,
  policy: ReadableKindPolicy,
): string[] {
  return injectorsProblems(spec?.injectors, "spec.injectors", policy);
}

/**
 * PackageVariantSet objectSelector kinds and template injectors outside the policy. A
 * repositorySelector always reads Repositories, this module's own kind, in the set's namespace.
 */
export function packageVariantSetKindProblems(
  spec: PackageVariantSetSpec | undefined,
  policy: ReadableKindPolicy,
): string[] {
  return (spec?.targets ?? []).flatMap((target, i) => {
    const path = `spec.targets[${i}]`;
    const selector = target.objectSelector;
    const problems = injectorsProblems(
      target.template?.injectors,
      `${path}.template.injectors`,
      policy,
    );
    if (selector?.apiVersion && selector.kind) {
      const problem = readableKindProblem(
        `${path}.objectSelector`,
        kindOf(selector.apiVersion, selector.kind),
        policy,
      );
      if (problem) problems.unshift(problem);
    }
    return problems;
  });
}
