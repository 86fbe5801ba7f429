import { crdManifests } from "../../../crd-types/manifests";
import { loadCrds, schemaAt, undescribedProperties, type Crd, type Schema } from "./crd-schema";

interface Expected {
  file: string;
  kind: string;
  group: string;
  version: string;
  plural: string;
  shortNames: string[];
  columns: string[];
}

const expected: Expected[] = [
  {
    file: "repositories.config.porch.kpt.dev.yaml",
    kind: "Repository",
    group: "config.porch.kpt.dev",
    version: "v1alpha1",
    plural: "repositories",
    shortNames: ["repo"],
    columns: ["Type", "Deployment", "Ready", "Address", "Branch", "Packages", "Age"],
  },
  {
    file: "packagerevisions.porch.kpt.dev.yaml",
    kind: "PackageRevision",
    group: "porch.kpt.dev",
    version: "v1alpha2",
    plural: "packagerevisions",
    shortNames: ["rpkg"],
    columns: [
      "Package",
      "WorkspaceName",
      "Revision",
      "Latest",
      "Lifecycle",
      "Repository",
      "Ready",
      "Age",
    ],
  },
  {
    file: "packagerevisionresources.porch.kpt.dev.yaml",
    kind: "PackageRevisionResources",
    group: "porch.kpt.dev",
    version: "v1alpha2",
    plural: "packagerevisionresources",
    shortNames: ["prr"],
    columns: ["Package", "Workspace", "Repository", "Age"],
  },
  {
    file: "packagevariants.config.porch.kpt.dev.yaml",
    kind: "PackageVariant",
    group: "config.porch.kpt.dev",
    version: "v1alpha1",
    plural: "packagevariants",
    shortNames: ["pvar"],
    columns: [
      "Ready",
      "Upstream Repo",
      "Upstream Package",
      "Revision",
      "Downstream Repo",
      "Downstream Package",
      "Age",
    ],
  },
  {
    file: "packagevariantsets.config.porch.kpt.dev.yaml",
    kind: "PackageVariantSet",
    group: "config.porch.kpt.dev",
    version: "v1alpha2",
    plural: "packagevariantsets",
    shortNames: ["pvset"],
    columns: [
      "Ready",
      "Stalled",
      "Upstream Repo",
      "Upstream Package",
      "Desired",
      "Ready Count",
      "Age",
    ],
  },
];

const loaded = loadCrds();

function crdFor(file: string): Crd {
  const entry = loaded.find(l => l.file === file);
  if (!entry) throw new Error(`crds/${file} is missing`);
  return entry.crd;
}

function rootSchema(crd: Crd): Schema {
  return crd.spec.versions[0].schema.openAPIV3Schema;
}

describe("crds/*.yaml", () => {
  it("holds exactly the five CRDs of the project", () => {
    expect(loaded.map(l => l.file).sort()).toEqual(expected.map(e => e.file).sort());
  });

  describe.each(expected)("$kind", exp => {
    const crd = crdFor(exp.file);
    const version = crd.spec.versions[0];
    const root = rootSchema(crd);

    it("is a namespaced apiextensions.k8s.io/v1 CRD named <plural>.<group> with one stored version", () => {
      expect(crd.apiVersion).toBe("apiextensions.k8s.io/v1");
      expect(crd.kind).toBe("CustomResourceDefinition");
      expect(crd.metadata.name).toBe(`${exp.plural}.${exp.group}`);
      expect(exp.file).toBe(`${crd.metadata.name}.yaml`);
      expect(crd.spec).toMatchObject({ group: exp.group, scope: "Namespaced" });
      expect(crd.spec.names).toMatchObject({ kind: exp.kind, plural: exp.plural });
      expect(crd.spec.versions.filter(v => v.storage)).toEqual([version]);
      expect(version).toMatchObject({ name: exp.version, served: true, storage: true });
    });

    it("has the short names and the porch category", () => {
      expect(crd.spec.names.shortNames).toEqual(exp.shortNames);
      expect(crd.spec.names.categories).toContain("porch");
    });

    it("has the status subresource", () => {
      expect(version.subresources?.status).toEqual({});
    });

    it("has the printer columns, each pointing at a declared field", () => {
      const columns = version.additionalPrinterColumns ?? [];
      expect(columns.map(c => c.name)).toEqual(expect.arrayContaining(exp.columns));
      for (const column of columns) {
        if (column.jsonPath.startsWith(".metadata.")) continue;
        // Condition filters such as conditions[?(@.type=="Ready")] resolve to the list itself.
        const fieldPath = column.jsonPath.replace(/\[\?\(.*?\)\]/g, ".[]").replace(/^\./, "");
        expect({ column: column.name, declared: schemaAt(root, fieldPath) !== undefined }).toEqual({
          column: column.name,
          declared: true,
        });
      }
    });

    it("describes every property at every depth", () => {
      expect(undescribedProperties(root, "")).toEqual([".metadata"]);
      // The API server forbids anything but `type` on the root metadata schema.
      expect(root.properties?.metadata).toEqual({ type: "object" });
      expect(root.description?.trim()).toBeTruthy();
    });

    it("has structural spec and status objects", () => {
      expect(root.type).toBe("object");
      expect(root.properties?.spec?.type).toBe("object");
      expect(root.properties?.status?.type).toBe("object");
    });
  });

  describe.each(expected.filter(e => e.kind !== "PackageRevisionResources"))(
    "$kind conditions",
    exp => {
      const conditions = schemaAt(rootSchema(crdFor(exp.file)), "status.conditions");

      it("are a list map keyed by type in the metav1.Condition shape", () => {
        expect(conditions?.["x-kubernetes-list-type"]).toBe("map");
        expect(conditions?.["x-kubernetes-list-map-keys"]).toEqual(["type"]);
        expect(Object.keys(conditions?.items?.properties ?? {}).sort()).toEqual([
          "lastTransitionTime",
          "message",
          "observedGeneration",
          "reason",
          "status",
          "type",
        ]);
        expect([...(conditions?.items?.required ?? [])].sort()).toEqual([
          "lastTransitionTime",
          "message",
          "reason",
          "status",
          "type",
        ]);
        expect(conditions?.items?.properties?.status?.enum).toEqual(["True", "False", "Unknown"]);
      });
    },
  );
});

describe("API details", () => {
  const pr = crdFor("packagerevisions.porch.kpt.dev.yaml");
  const pv = crdFor("packagevariants.config.porch.kpt.dev.yaml");
  const pvs = crdFor("packagevariantsets.config.porch.kpt.dev.yaml");
  const repo = crdFor("repositories.config.porch.kpt.dev.yaml");

  it("PackageRevision requires exactly one source kind via CEL", () => {
    const source = schemaAt(rootSchema(pr), "spec.source");
    expect(source?.["x-kubernetes-validations"]).toEqual([
      expect.objectContaining({
        rule: expect.stringMatching(/^self == oldSelf \|\| .*secretRef\.name : ''\)\)$/),
        message: "source is immutable",
      }),
      expect.objectContaining({
        message: "exactly one of init, cloneFrom, copyFrom, or upgrade must be set",
      }),
    ]);
    expect(Object.keys(source?.properties ?? {}).sort()).toEqual([
      "cloneFrom",
      "copyFrom",
      "init",
      "upgrade",
    ]);
    expect(schemaAt(rootSchema(pr), "spec.source.upgrade.strategy")?.default).toBe(
      "resource-merge",
    );
  });

  it("PackageRevisionResources is served at v1alpha1 too (porchctl), on the same schema", () => {
    const prr = crdFor("packagerevisionresources.porch.kpt.dev.yaml");
    const [stored, v1alpha1] = prr.spec.versions;
    expect(prr.spec.versions).toHaveLength(2);
    expect(v1alpha1).toEqual({ ...stored, name: "v1alpha1", storage: false });
    for (const other of [pr, pv, pvs, repo]) expect(other.spec.versions).toHaveLength(1);
  });

  it("PackageRevision fields are selectable", () => {
    expect(pr.spec.versions[0].selectableFields?.map(f => f.jsonPath)).toEqual([
      ".spec.lifecycle",
      ".spec.repository",
      ".spec.packageName",
      ".spec.workspaceName",
      ".status.revision",
    ]);
  });

  it.each([
    ["PackageVariant", pv],
    ["PackageVariantSet", pvs],
  ])("%s upstream.revision accepts an integer or a string", (_kind, crd) => {
    const revision = schemaAt(rootSchema(crd), "spec.upstream.revision");
    expect(revision?.["x-kubernetes-int-or-string"]).toBe(true);
    expect(revision?.anyOf).toEqual([{ type: "integer" }, { type: "string" }]);
    expect(revision?.description).toMatch(/latest/);
  });

  it.each([
    ["spec.adoptionPolicy", ["adoptNone", "adoptExisting"], "adoptNone"],
    ["spec.deletionPolicy", ["delete", "orphan"], "delete"],
  ])("PackageVariant %s is an enum with a default", (path, values, defaultValue) => {
    expect(schemaAt(rootSchema(pv), path)).toMatchObject({ enum: values, default: defaultValue });
  });

  it("PackageVariantSet leaves the exactly-one rules to the webhook", () => {
    expect(JSON.stringify(rootSchema(pvs))).not.toContain("x-kubernetes-validations");
  });

  it("Repository names and location fields are guarded by CEL", () => {
    const messages = (rootSchema(repo)["x-kubernetes-validations"] ?? []).map(v => v.message);
    for (const field of ["spec.type", "spec.git.repo", "spec.git.branch", "spec.git.directory"]) {
      expect(messages).toContainEqual(expect.stringContaining(`${field} is immutable`));
    }
    expect(messages).toContain("metadata.name must be no more than 63 characters");
    // An empty name means no credentials: porchctl always sends `secretRef: {name: ""}`.
    expect(schemaAt(rootSchema(repo), "spec.git.secretRef.name")).not.toHaveProperty("minLength");
    expect(schemaAt(rootSchema(repo), "spec.git.branch")).toMatchObject({
      default: "main",
      minLength: 1,
    });
  });
});

describe("crd-types/manifests.ts", () => {
  it("equals crds/*.yaml (run `npm run gen:crd-types` after editing a CRD)", () => {
    expect(crdManifests).toEqual(loaded.map(l => l.crd));
  });
});
