import { createNamespace, kubectl, kubectlOk } from "../support/kubectl";
import { loadExamples } from "../support/examples";

// Admission through the real API server and the real Pepr webhook (module started by global setup).
let ns: string;
beforeAll(() => {
  ns = createNamespace("e2e-admission");
});
afterAll(() => {
  kubectl(["delete", "namespace", ns, "--wait=false"]);
});

const examples = [...loadExamples("packagevariant"), ...loadExamples("packagevariantset")];

describe.each(examples.filter(e => e.file.startsWith("invalid-")).map(e => [e.file, e] as const))(
  "invalid example %s",
  (_file, example) => {
    it("is denied by the webhook, naming every problem", () => {
      const result = kubectl(["apply", "--dry-run=server", "-n", ns, "-f", example.path]);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        'admission webhook "pepr-porch-pepr.pepr.dev" denied the request',
      );
      for (const text of example.expected) expect(result.stderr).toContain(text);
    });
  },
);

describe.each(examples.filter(e => !e.file.startsWith("invalid-")).map(e => [e.file, e] as const))(
  "valid example %s",
  (_file, example) => {
    it("is admitted", () => {
      const result = kubectl(["apply", "--dry-run=server", "-n", ns, "-f", example.path]);
      expect(result.stderr).toBe("");
      expect(result.stdout).toContain("created (server dry run)");
    });
  },
);

describe("exec functions", () => {
  const variant = (exec: string) =>
    JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "PackageVariant",
      metadata: { name: "runs-exec" },
      spec: {
        upstream: { repo: "blueprints", package: "base-ns", revision: 1 },
        downstream: { repo: "deployments", package: "my-ns" },
        pipeline: { mutators: [{ image: "set-labels" }, { exec }] },
      },
    });

  it("are denied in a PackageVariant unless the function catalog runs them", () => {
    const denied = kubectl(["apply", "--dry-run=server", "-n", ns, "-f", "-"], variant("/bin/sh"));
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      `spec.pipeline.mutators[1].exec: exec function "/bin/sh" is not allowed: the function catalog has no entry for it`,
    );
    const allowed = kubectl(
      ["apply", "--dry-run=server", "-n", ns, "-f", "-"],
      variant("e2e-identity"),
    );
    expect(allowed.stderr).toBe("");
  });

  it("are denied in a new PackageRevisionResources' Kptfile, with its unsafe file names", () => {
    const kptfile = `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\npipeline:\n  mutators:\n    - exec: /bin/sh\n`;
    const result = kubectl(
      ["apply", "--dry-run=server", "-n", ns, "-f", "-"],
      JSON.stringify({
        apiVersion: "porch.kpt.dev/v1alpha2",
        kind: "PackageRevisionResources",
        metadata: { name: "blueprints.p.v1" },
        spec: {
          packageName: "p",
          repository: "blueprints",
          workspaceName: "v1",
          resources: { Kptfile: kptfile, ".GIT/config": "x" },
        },
      }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'spec.resources has unsafe file names: ".GIT/config" has a ".git" component',
    );
    expect(result.stderr).toContain(
      'spec.resources["Kptfile"] pipeline.mutators[0]: exec function "/bin/sh" is not allowed',
    );
  });
});

describe("the schema", () => {
  const pv = (spec: string) => `apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: schema-check
spec:
${spec}`;

  it("rejects a wrong type", () => {
    const result = kubectl(
      ["apply", "--dry-run=server", "-n", ns, "-f", "-"],
      pv(
        "  upstream: {repo: b, package: p, revision: 1}\n  downstream: {repo: d, package: p}\n  labels: [a, b]\n",
      ),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /spec\.labels: Invalid value: "array": spec\.labels in body must be of type object/,
    );
  });

  it("rejects an unknown field", () => {
    const result = kubectl(
      ["apply", "--dry-run=server", "-n", ns, "-f", "-"],
      pv(
        "  upstream: {repo: b, package: p, revision: 1}\n  downstream: {repo: d, package: p}\n  adoptPolicy: adoptExisting\n",
      ),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('unknown field "spec.adoptPolicy"');
  });

  it("rejects a PackageRevision with two sources (CEL rule in the CRD)", () => {
    const result = kubectl(
      ["apply", "--dry-run=server", "-n", ns, "-f", "-"],
      `apiVersion: porch.kpt.dev/v1alpha2
kind: PackageRevision
metadata:
  name: blueprints.x.ws
spec:
  packageName: x
  repository: blueprints
  workspaceName: ws
  lifecycle: Draft
  source:
    init: {description: x}
    copyFrom: {name: blueprints.x.v1}
`,
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      "exactly one of init, cloneFrom, copyFrom, or upgrade must be set",
    );
  });

  it("denies a PackageRevision made by init in a subpackage, instead of ignoring it", () => {
    const result = kubectl(
      ["apply", "--dry-run=server", "-n", ns, "-f", "-"],
      `apiVersion: porch.kpt.dev/v1alpha2
kind: PackageRevision
metadata:
  name: blueprints.x.ws
spec:
  packageName: x
  repository: blueprints
  workspaceName: ws
  lifecycle: Draft
  source:
    init: {description: x, subpackage: db}
`,
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'spec.source.init.subpackage ("db") is not supported: init creates the package itself',
    );
  });

  it("explains the API with kubectl explain", () => {
    const out = kubectlOk(["explain", "packagevariantset.spec.targets"]);
    expect(out).toContain("Each target must set exactly one of repositories");
    expect(out).toMatch(/repositorySelector\s+<Object>/);
    const pv = kubectlOk(["explain", "packagevariant.spec.upstream.revision"]);
    expect(pv).toContain("latest");
  });
});

describe("a package near the 1 MiB limit", () => {
  const files = (tag: string) =>
    JSON.stringify({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevisionResources",
      metadata: { name: "blueprints.big.v1" },
      spec: {
        packageName: "big",
        repository: "blueprints",
        workspaceName: "v1",
        // 1,000,000 bytes and a tag: under PORCH_PEPR_GIT_MAX_PACKAGE_BYTES (1 MiB), yet 1.2 MB
        // as JSON ("\n" is two bytes), so an edit's review carries more than 2 MB.
        resources: { "big.yaml": `# ${tag}\n${"x: y\n".repeat(200_000)}` },
      },
    });

  // Found by the fault campaign's fuzzing: an edit's AdmissionReview carries the object twice,
  // and Pepr's webhook server read at most 2 MB, answering 413, which the API server (failure
  // policy Fail) turned into a 500 for any edit of a package over 1 MiB of JSON.
  it("is edited through the webhook, not refused with a 500", () => {
    kubectlOk(["create", "-n", ns, "-o", "name", "-f", "-"], files("first"));
    const edit = kubectl(
      ["replace", "--dry-run=server", "-n", ns, "-o", "name", "-f", "-"],
      files("second"),
    );
    expect(edit.stderr).toBe("");
    expect(edit.code).toBe(0);
  });

  // The API server alone takes about 3 MiB: files the operator would refuse to read back from
  // git (the same limits, the same settings) are denied, every problem named.
  it("is denied over the git content limits, naming each file, its size, the limit and the setting", () => {
    const result = kubectl(
      ["create", "-n", ns, "-o", "name", "-f", "-"],
      JSON.stringify({
        apiVersion: "porch.kpt.dev/v1alpha2",
        kind: "PackageRevisionResources",
        metadata: { name: "blueprints.huge.v1" },
        spec: {
          packageName: "huge",
          repository: "blueprints",
          workspaceName: "v1",
          resources: { "huge.yaml": "x".repeat(1024 * 1024 + 1), "more.yaml": "y: z\n" },
        },
      }),
    );
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'spec.resources: file "huge.yaml" is 1048577 bytes, over the per-file limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES); spec.resources: the package\'s files are 1048582 bytes in all, over the per-package limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_PACKAGE_BYTES)',
    );
  });
});
