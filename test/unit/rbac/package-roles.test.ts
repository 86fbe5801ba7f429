import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseAllDocuments } from "yaml";

// manifests/package-roles.yaml: editor, approver and viewer, as README "Security model" says.
interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface Role {
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  rules: Rule[];
}

const roles = parseAllDocuments(
  readFileSync(join(__dirname, "../../../manifests/package-roles.yaml"), "utf8"),
).map(d => d.toJSON() as Role);
const role = (name: string) => roles.find(r => r.metadata.name === name) as Role;
const grants = (r: Role, group: string, resource: string, verb: string) =>
  r.rules.some(
    rule =>
      rule.apiGroups.includes(group) &&
      rule.resources.includes(resource) &&
      rule.verbs.includes(verb),
  );
const aggregatedTo = (name: string) =>
  roles.filter(
    r => r.metadata.labels?.[`rbac.authorization.k8s.io/aggregate-to-${name}`] === "true",
  );

describe("manifests/package-roles.yaml", () => {
  it("are ClusterRoles without wildcards", () => {
    expect(roles.map(r => r.kind)).toEqual(roles.map(() => "ClusterRole"));
    expect(JSON.stringify(roles)).not.toContain('"*"');
  });

  it("lets an editor write packages but not approve them", () => {
    const editor = role("porch-pepr-package-editor");
    for (const verb of ["create", "patch", "delete"])
      expect(grants(editor, "porch.kpt.dev", "packagerevisions", verb)).toBe(true);
    expect(grants(editor, "porch.kpt.dev", "packagerevisions/approval", "update")).toBe(false);
  });

  it("lets an approver approve, and edit no files", () => {
    const approver = role("porch-pepr-package-approver");
    expect(grants(approver, "porch.kpt.dev", "packagerevisions/approval", "update")).toBe(true);
    expect(grants(approver, "porch.kpt.dev", "packagerevisions", "patch")).toBe(true);
    expect(grants(approver, "porch.kpt.dev", "packagerevisionresources", "update")).toBe(false);
    expect(grants(approver, "porch.kpt.dev", "packagerevisions", "create")).toBe(false);
  });

  it("lets a viewer only read", () => {
    const verbs = role("porch-pepr-package-viewer").rules.flatMap(r => r.verbs);
    expect([...new Set(verbs)].sort()).toEqual(["get", "list", "watch"]);
  });

  it("aggregates no approval right into the built-in roles, and no package files into view", () => {
    for (const name of ["edit", "admin", "view"])
      for (const r of aggregatedTo(name))
        expect(grants(r, "porch.kpt.dev", "packagerevisions/approval", "update")).toBe(false);
    for (const r of aggregatedTo("view")) {
      expect(grants(r, "porch.kpt.dev", "packagerevisionresources", "get")).toBe(false);
      expect(
        r.rules.flatMap(rule => rule.verbs).every(v => ["get", "list", "watch"].includes(v)),
      ).toBe(true);
    }
    expect(aggregatedTo("edit").map(r => r.metadata.name)).toEqual(["porch-pepr-package-editor"]);
  });
});
