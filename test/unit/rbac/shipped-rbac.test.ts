import pkg from "../../../package.json";
import { DEFAULT_READABLE_KINDS, parseReadableKinds } from "../../../lib/validation";

// The ClusterRole `npx pepr build` generates is package.json's `pepr.rbac` (rbacMode scoped)
// plus a `watch` per bound kind. What the operator may read must match what it is allowed to.
interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
const rules = pkg.pepr.rbac as Rule[];

const grants = (group: string, resource: string, verb: string) =>
  rules.some(
    r =>
      r.apiGroups.includes(group) &&
      r.resources.includes(resource) &&
      r.verbs.includes(verb) &&
      r.resourceNames === undefined,
  );

// The plural each kind is served under (the CRDs in crds/ and the core API).
const plural: Record<string, string> = { ConfigMap: "configmaps", Repository: "repositories" };

describe("the RBAC the module ships", () => {
  it("is scoped, with no wildcard anywhere", () => {
    expect(pkg.pepr.rbacMode).toBe("scoped");
    expect(JSON.stringify(rules)).not.toContain('"*"');
  });

  it("lets the operator get, list and watch every kind readable by default", () => {
    for (const kind of parseReadableKinds(DEFAULT_READABLE_KINDS)) {
      for (const verb of ["get", "list", "watch"])
        expect([kind.kind, verb, grants(kind.group, plural[kind.kind], verb)]).toEqual([
          kind.kind,
          verb,
          true,
        ]);
    }
  });

  it("reads Secrets only one at a time, by name: never lists or watches them", () => {
    const secretRules = rules.filter(
      r => r.apiGroups.includes("") && r.resources.includes("secrets"),
    );
    expect(secretRules.flatMap(r => r.verbs)).toEqual(["get"]);
  });

  it("keeps status writes on the status subresources", () => {
    expect(grants("porch.kpt.dev", "packagerevisions/status", "patch")).toBe(true);
    for (const resource of ["repositories", "packagevariants", "packagevariantsets"])
      expect(grants("config.porch.kpt.dev", `${resource}/status`, "patch")).toBe(true);
  });

  it("may set blockOwnerDeletion on a set's PackageVariants, and writes no set or Repository", () => {
    // OwnerReferencesPermissionEnforcement (on in hardened clusters and in our control plane)
    // asks for update on the owner's finalizers before a blockOwnerDeletion reference is set.
    expect(grants("config.porch.kpt.dev", "packagevariantsets/finalizers", "update")).toBe(true);
    for (const resource of ["repositories", "packagevariantsets"])
      for (const verb of ["create", "update", "patch", "delete"])
        expect([resource, verb, grants("config.porch.kpt.dev", resource, verb)]).toEqual([
          resource,
          verb,
          false,
        ]);
  });

  // Pepr's controller.js applies the PeprStore CRD (server-side, forced) before it starts the
  // module: without patch on it every Pod of `npx pepr deploy` exits with 403.
  it("may change only this module's own CustomResourceDefinitions and Pepr's store's", () => {
    const crdRules = rules.filter(r => r.resources.includes("customresourcedefinitions"));
    expect(crdRules).toHaveLength(1);
    expect(crdRules[0].resourceNames?.sort()).toEqual([
      "packagerevisionresources.porch.kpt.dev",
      "packagerevisions.porch.kpt.dev",
      "packagevariants.config.porch.kpt.dev",
      "packagevariantsets.config.porch.kpt.dev",
      "peprstores.pepr.dev",
      "repositories.config.porch.kpt.dev",
    ]);
  });
});
