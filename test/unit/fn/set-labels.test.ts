import { messages, renderMutator } from "./helpers";

const FN = "image: gcr.io/kpt-fn/set-labels:v0.2.0";

describe("set-labels", () => {
  it("catalog test setlabels-config: a SetLabels config with selectors labels metadata and the Service selector", async () => {
    const config = `apiVersion: fn.kpt.dev/v1alpha1\nkind: SetLabels\nmetadata:\n  name: my-config\n  annotations:\n    config.kubernetes.io/local-config: "true"\nlabels:\n  color: orange\n  fruit: apple\n`;
    const resources = `apiVersion: v1
kind: ConfigMap
metadata:
  name: the-map
data:
  some-key: some-value
---
apiVersion: v1
kind: Service
metadata:
  name: the-service
  namespace: the-namespace
spec:
  selector:
    foo: bar
`;
    const out = await renderMutator(
      `${FN}\nconfigPath: fn-config.yaml\nselectors:\n  - kind: ConfigMap\n  - kind: Service`,
      {
        "fn-config.yaml": config,
        "resources.yaml": resources,
      },
    );
    expect(out.ok).toBe(true);
    expect(out.files["resources.yaml"]).toBe(`apiVersion: v1
kind: ConfigMap
metadata:
  name: the-map
  labels:
    color: orange
    fruit: apple
data:
  some-key: some-value
---
apiVersion: v1
kind: Service
metadata:
  name: the-service
  namespace: the-namespace
  labels:
    color: orange
    fruit: apple
spec:
  selector:
    foo: bar
    color: orange
    fruit: apple
`);
    expect(out.results.items[0].results).toEqual([
      { message: "set 6 labels in total", severity: "info" },
    ]);
  });

  it("README ConfigMap config: a Deployment gets labels on metadata, selector and pod template", async () => {
    const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
spec:
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx
`;
    const out = await renderMutator(`${FN}\nconfigMap:\n  color: orange\n  fruit: apple`, {
      "deploy.yaml": deployment,
    });
    expect(out.files["deploy.yaml"]).toBe(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web # the web tier
  labels:
    color: orange
    fruit: apple
spec:
  selector:
    matchLabels:
      app: web
      color: orange
      fruit: apple
  template:
    metadata:
      labels:
        app: web
        color: orange
        fruit: apple
    spec:
      containers:
      - name: web
        image: nginx
`);
    expect(messages(out)).toEqual(["set 6 labels in total"]);
  });

  it("follows CronJob job templates and StatefulSet claims, but never creates optional selectors", async () => {
    const resources = `apiVersion: batch/v1
kind: CronJob
metadata:
  name: tick
spec:
  jobTemplate:
    spec:
      template:
        spec:
          containers: []
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
spec:
  volumeClaimTemplates:
    - metadata:
        name: data
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: np
spec:
  podSelector: {}
`;
    const out = await renderMutator(`${FN}\nconfigMap:\n  team: a`, { "r.yaml": resources });
    const text = out.files["r.yaml"];
    // New maps are appended after existing fields, as kyaml does.
    expect(text).toContain(
      "  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers: []\n        metadata:\n          labels:\n            team: a\n    metadata:\n      labels:\n        team: a\n",
    );
    expect(text).toContain(
      "    - metadata:\n        name: data\n        labels:\n          team: a\n",
    );
    expect(text).toContain("  selector:\n    matchLabels:\n      team: a\n");
    // NetworkPolicy and job selectors are only updated where they exist.
    expect(text).toContain("  podSelector: {}\n");
    expect(text).not.toContain("    spec:\n      selector:");
  });

  it("skips local-config resources and rejects other config kinds", async () => {
    const local = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ctx\n  annotations:\n    config.kubernetes.io/local-config: "true"\n`;
    const out = await renderMutator(`${FN}\nconfigMap:\n  a: b`, { "ctx.yaml": local });
    expect(out.files["ctx.yaml"]).toBe(local);
    expect(messages(out)).toEqual(["no input resources"]);

    const bad = await renderMutator(`${FN}\nconfigPath: c.yaml`, {
      "c.yaml": "apiVersion: example.com/v1\nkind: Labels\nmetadata:\n  name: c\n",
    });
    expect(bad.ok).toBe(false);
    expect(bad.error?.message).toContain(
      "unknown FunctionConfig `Labels.example.com`, expect `SetLabels.fn.kpt.dev` or `ConfigMap.v1`",
    );
  });
});
