// clonePackage (kpt pkg get / Porch clone) and the deployment package context.
import { clonePackage, generatePackageContext } from "../../../lib/kpt/clone";
import { at, DEPLOY_V1, LOCK_V1, objects, pick, upstreamV1 } from "./fixtures";

describe("clonePackage", () => {
  const cloned = clonePackage(upstreamV1(), LOCK_V1, "mypkg");

  it("writes the Kptfile as kpt pkg get does: new name, upstream and upstreamLock after metadata", () => {
    expect(cloned.Kptfile).toBe(`apiVersion: kpt.dev/v1
kind: Kptfile
metadata: # kpt-merge: /mypkg
  name: mypkg
  labels:
    tier: backend
  annotations:
    owner: team-a
    internal.kpt.dev/upstream-identifier: 'kpt.dev|Kptfile|default|mypkg'
upstream:
  type: git
  git:
    repo: https://git.example.test/blueprints.git
    directory: /pkg
    ref: pkg/v1
  updateStrategy: resource-merge
upstreamLock:
  type: git
  git:
    repo: https://git.example.test/blueprints.git
    directory: /pkg
    ref: pkg/v1
    commit: a95c696c0000000000000000000000000000000a
info:
  description: sample package
pipeline:
  mutators:
    - image: gcr.io/kpt-fn/set-labels:v0.2.0
      configMap:
        app: demo
`);
  });

  it("adds the kpt-merge comment and upstream-identifier annotation, keeping other comments", () => {
    expect(cloned["deploy.yaml"]).toBe(
      DEPLOY_V1.replace("metadata:\n", "metadata: # kpt-merge: demo/app\n").replace(
        "    app: demo\nspec:",
        "    app: demo\n  annotations:\n    internal.kpt.dev/upstream-identifier: 'apps|Deployment|demo|app'\nspec:",
      ),
    );
  });

  it.each([
    ["widget.yaml", 0, "metadata: # kpt-merge: /w1", "example.com|Widget|default|w1"],
    ["multi.yaml", 0, "metadata: # kpt-merge: /cm-a", "|ConfigMap|default|cm-a"],
    ["multi.yaml", 1, "metadata: # kpt-merge: /cm-b", "|ConfigMap|default|cm-b"],
    ["service.yaml", 0, "metadata: # kpt-merge: demo/app", "|Service|demo|app"],
    ["sub/Kptfile", 0, "metadata: # kpt-merge: /sub", "kpt.dev|Kptfile|default|sub"],
  ])("marks %s document %d", (file, index, comment, identifier) => {
    expect(cloned[file]).toContain(comment);
    expect(at(cloned, file, "metadata.annotations", index)).toEqual({
      "internal.kpt.dev/upstream-identifier": identifier,
    });
  });

  it("keeps an existing kpt-merge comment (package chains) and derives the annotation from it", () => {
    const branch = clonePackage(
      {
        ...upstreamV1(),
        "deploy.yaml": DEPLOY_V1.replace(
          "metadata:\n  name: app\n",
          "metadata: # kpt-merge: demo/root-app\n  name: app\n",
        ),
      },
      LOCK_V1,
      "leaf",
    );
    expect(branch["deploy.yaml"]).toContain("metadata: # kpt-merge: demo/root-app\n");
    expect(at(branch, "deploy.yaml", "metadata.annotations")).toEqual({
      "internal.kpt.dev/upstream-identifier": "apps|Deployment|demo|root-app",
    });
  });

  it("replaces an upstream's own upstream/upstreamLock and leaves subpackage Kptfiles' upstream alone", () => {
    const blueprint = clonePackage(
      upstreamV1(),
      { ...LOCK_V1, repo: "https://git.example.test/catalog.git" },
      "blueprint",
    );
    const withSubUpstream = {
      ...blueprint,
      "sub/Kptfile": blueprint["sub/Kptfile"].replace("info:", "upstream:\n  type: git\ninfo:"),
    };
    const leaf = clonePackage(withSubUpstream, LOCK_V1, "leaf");
    expect(at(leaf, "Kptfile", "upstream.git.repo")).toBe(LOCK_V1.repo);
    expect(leaf.Kptfile).toContain("metadata: # kpt-merge: /leaf\n");
    expect(objects(leaf, "Kptfile")[0]).toHaveProperty(
      ["metadata", "annotations", "internal.kpt.dev/upstream-identifier"],
      "kpt.dev|Kptfile|default|leaf",
    );
    expect(leaf["sub/Kptfile"]).toContain("metadata: # kpt-merge: /sub\n");
    expect(at(leaf, "sub/Kptfile", "upstream")).toEqual({ type: "git" });
  });

  it("copies non-KRM and invalid YAML files unchanged", () => {
    const files = clonePackage(
      {
        ...upstreamV1(),
        "notes.txt": "hello\n",
        "broken.yaml": "a: [\n",
        "values.yaml": "replicas: 3\n",
      },
      LOCK_V1,
      "p",
    );
    expect(files["notes.txt"]).toBe("hello\n");
    expect(files["broken.yaml"]).toBe("a: [\n");
    expect(files["values.yaml"]).toBe("replicas: 3\n");
  });

  it("creates a minimal Kptfile when the upstream has none", () => {
    const files = clonePackage(
      { "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n" },
      LOCK_V1,
      "p",
    );
    expect(objects(files, "Kptfile")[0]).toMatchObject({
      apiVersion: "kpt.dev/v1",
      kind: "Kptfile",
      metadata: { name: "p" },
      upstreamLock: { git: { commit: LOCK_V1.commit } },
    });
  });
});

describe("package context for deployment", () => {
  const upstream = {
    ...upstreamV1(),
    "package-context.yaml":
      'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: example\n  region: eu\n',
    "sub/package-context.yaml":
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\ndata:\n  name: sub\n",
  };

  it("regenerates package-context.yaml with name and package-path, dropping upstream keys and subpackage contexts", () => {
    const files = clonePackage(upstream, LOCK_V1, "edge-1", {
      forDeployment: true,
      packagePath: "clusters/edge-1",
    });
    expect(files["package-context.yaml"]).toBe(`apiVersion: v1
kind: ConfigMap
metadata: # kpt-merge: /kptfile.kpt.dev
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/local-config: "true"
    internal.kpt.dev/upstream-identifier: '|ConfigMap|default|kptfile.kpt.dev'
data:
  name: edge-1
  package-path: clusters/edge-1
`);
    expect(files).not.toHaveProperty(["sub/package-context.yaml"]);
  });

  it("without a package path only data.name is written", () => {
    const files = generatePackageContext(
      { Kptfile: "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n" },
      { name: "p" },
    );
    expect(objects(files, "package-context.yaml")[0]).toEqual({
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "kptfile.kpt.dev",
        annotations: { "config.kubernetes.io/local-config": "true" },
      },
      data: { name: "p" },
    });
  });

  it("keeps other objects that shared a file with an old context", () => {
    const files = generatePackageContext(
      {
        "ctx.yaml":
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\n",
      },
      { name: "p" },
    );
    expect(objects(files, "ctx.yaml").map(o => pick(o, "metadata.name"))).toEqual(["other"]);
  });
});
