import { renderMutator } from "./helpers";

const FN = "image: gcr.io/kpt-fn/apply-replacements:v0.1.1";

function config(replacements: string): string {
  return `apiVersion: fn.kpt.dev/v1alpha1
kind: ApplyReplacements
metadata:
  name: replacements-fn-config
  annotations:
    config.kubernetes.io/local-config: "true"
replacements:
${replacements}`;
}

describe("apply-replacements", () => {
  it("catalog example apply-replacements-simple: copies the Pod spec into the Job, creating the field", async () => {
    const pod =
      "apiVersion: v1\nkind: Pod\nmetadata:\n  name: my-pod\nspec:\n  containers:\n    - image: busybox\n      name: myapp-container\n  restartPolicy: OnFailure\n";
    const out = await renderMutator(`${FN}\nconfigPath: replacements.yaml`, {
      "replacements.yaml": config(`- source:
    kind: Pod
    name: my-pod
    fieldPath: spec
  targets:
  - select:
      name: hello
      kind: Job
    fieldPaths:
    - spec.template.spec
    options:
      create: true
`),
      "resources.yaml": pod,
      "job.yaml": "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: hello\n",
    });
    expect(out.ok).toBe(true);
    expect(out.files["job.yaml"]).toBe(`apiVersion: batch/v1
kind: Job
metadata:
  name: hello
spec:
  template:
    spec:
      containers:
      - image: busybox
        name: myapp-container
      restartPolicy: OnFailure
`);
    expect(out.files["resources.yaml"]).toBe(pod);
    expect(out.results.items[0]).toEqual({
      image: "gcr.io/kpt-fn/apply-replacements:v0.1.1",
      runtime: "builtin",
      durationMs: expect.any(Number),
      exitCode: 0,
    });
  });

  it("catalog example apply-replacements-string-values: creates list elements and keeps string values quoted", async () => {
    const deployment =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: my-app\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          image: nginx\n";
    const target = (env: string): string => `  targets:
  - select:
      kind: Deployment
      name: my-app
    fieldPaths:
    - spec.template.spec.containers.[name=app].env.[name=${env}].value
    options:
      create: true
`;
    const out = await renderMutator(`${FN}\nconfigPath: replacements.yaml`, {
      "replacements.yaml": config(
        `- source:\n    kind: ConfigMap\n    name: cm-source\n    fieldPath: data.taxRate\n${target("TAX_RATE")}` +
          `- source:\n    kind: ConfigMap\n    name: cm-source\n    fieldPath: data.port\n${target("PORT")}`,
      ),
      "cm-source.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm-source\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  taxRate: "18"\n  port: "8080"\n`,
      "deployment.yaml": deployment,
    });
    expect(out.files["deployment.yaml"]).toBe(
      `${deployment}          env:\n            - name: TAX_RATE\n              value: "18"\n            - name: PORT\n              value: "8080"\n`,
    );
  });

  it.each([
    ["replaces one delimited part", 1, "registry/nginx:1.25"],
    ["prefixes with a negative index", -1, "1.25:registry/nginx:1.19"],
    ["appends past the end", 5, "registry/nginx:1.19:1.25"],
  ])("delimiter options on source and target: %s", async (_name, index, expected) => {
    const out = await renderMutator(`${FN}\nconfigPath: r.yaml`, {
      "r.yaml": config(`- source:
    kind: ConfigMap
    name: versions
    fieldPath: data.nginx
    options:
      delimiter: "@"
      index: 1
  targets:
  - select:
      kind: Deployment
    fieldPaths:
    - spec.template.spec.containers.*.image
    options:
      delimiter: ":"
      index: ${index}
`),
      "versions.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: versions\ndata:\n  nginx: nginx@1.25\n",
      "d.yaml":
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  template:\n    spec:\n      containers:\n        - name: web\n          image: registry/nginx:1.19 # pinned\n",
    });
    expect(out.files["d.yaml"]).toContain(`          image: ${expected} # pinned\n`);
  });

  it("honours reject and label selectors, and writes numbers into numeric fields", async () => {
    const deployments = ["a", "b", "c"]
      .map(
        name =>
          `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\n  labels:\n    tier: ${name === "c" ? "db" : "web"}\nspec:\n  replicas: 1\n`,
      )
      .join("---\n");
    const out = await renderMutator(`${FN}\nconfigPath: r.yaml`, {
      "r.yaml": config(`- source:
    kind: ConfigMap
    name: scale
    fieldPath: data.replicas
  targets:
  - select:
      kind: Deployment
      labelSelector: tier in (web, db)
    reject:
    - name: b
    - labelSelector: tier=db
    fieldPaths:
    - spec.replicas
`),
      "scale.yaml":
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: scale\ndata:\n  replicas: 3\n",
      "d.yaml": deployments,
    });
    const replicas = out.files["d.yaml"].match(/replicas: .*/g);
    expect(replicas).toEqual(["replicas: 3", "replicas: 1", "replicas: 1"]);
  });

  it("fails with kustomize's messages for a wrong config kind or a missing source", async () => {
    const wrongKind = await renderMutator(`${FN}\nconfigMap:\n  a: b`, {});
    expect(wrongKind.error?.message).toContain(
      "received functionConfig of kind ConfigMap and apiVersion v1, only functionConfig of kind ApplyReplacements and apiVersion fn.kpt.dev/v1alpha1 is supported",
    );
    const noSource = await renderMutator(`${FN}\nconfigPath: r.yaml`, {
      "r.yaml": config(
        "- source:\n    kind: ConfigMap\n    name: nope\n  targets:\n  - select:\n      kind: Job\n",
      ),
    });
    expect(noSource.ok).toBe(false);
    expect(noSource.error?.message).toContain(
      "nothing selected by ConfigMap.[noVer].[noGrp]/nope.[noNs]",
    );
  });
});
