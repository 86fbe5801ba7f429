import { messages, renderMutator } from "./helpers";

const FN = "image: ghcr.io/kptdev/krm-functions-catalog/set-annotations:latest";
const SET = 'set annotations: {"color":"orange","fruit":"apple"}';

describe("set-annotations", () => {
  it("catalog test additional-annotations: SetAnnotations with additionalAnnotationFields, results as kpt lists them", async () => {
    const config = `apiVersion: fn.kpt.dev/v1alpha1
kind: SetAnnotations
metadata:
  name: my-config
  annotations:
    config.kubernetes.io/local-config: "true"
annotations:
  color: orange
  fruit: apple
additionalAnnotationFields:
  - path: data/selector/annotations
    kind: ConfigMap
    create: true
`;
    const local = `apiVersion: v1
kind: ConfigMap
metadata:
  name: local-config-map
  annotations:
    config.kubernetes.io/local-config: "true"
data:
  some-key: some-value
`;
    const resources = `apiVersion: v1
kind: ConfigMap
metadata:
  name: the-map
data:
  some-key: some-value
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: the-second-map
data:
  some-key: some-other-value
`;
    const out = await renderMutator(
      `${FN}\nconfigPath: fn-config.yaml\nselectors:\n  - kind: ConfigMap`,
      {
        "fn-config.yaml": config,
        "local-config.yaml": local,
        "resources.yaml": resources,
      },
    );
    expect(out.ok).toBe(true);
    expect(out.files["fn-config.yaml"]).toBe(config);
    expect(out.files["local-config.yaml"]).toBe(`apiVersion: v1
kind: ConfigMap
metadata:
  name: local-config-map
  annotations:
    config.kubernetes.io/local-config: "true"
    color: orange
    fruit: apple
data:
  some-key: some-value
  selector:
    annotations:
      color: orange
      fruit: apple
`);
    expect(out.files["resources.yaml"]).toContain(
      "  name: the-second-map\n  annotations:\n    color: orange\n    fruit: apple\ndata:\n  some-key: some-other-value\n  selector:\n",
    );
    expect(out.results.items[0].results).toEqual([
      {
        message: SET,
        field: { path: "data.selector.annotations" },
        file: { path: "local-config.yaml" },
      },
      {
        message: SET,
        field: { path: "metadata.annotations" },
        file: { path: "local-config.yaml" },
      },
      {
        message: SET,
        field: { path: "data.selector.annotations" },
        file: { path: "resources.yaml" },
      },
      { message: SET, field: { path: "metadata.annotations" }, file: { path: "resources.yaml" } },
      {
        message: SET,
        field: { path: "data.selector.annotations" },
        file: { path: "resources.yaml", index: 1 },
      },
      {
        message: SET,
        field: { path: "metadata.annotations" },
        file: { path: "resources.yaml", index: 1 },
      },
    ]);
  });

  it("README ConfigMap config: workload pod templates are annotated too", async () => {
    const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    metadata:
      labels:
        app: web
`;
    const out = await renderMutator(`${FN}\nconfigMap:\n  color: orange\n  fruit: apple`, {
      "d.yaml": deployment,
    });
    expect(out.files["d.yaml"]).toBe(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    color: orange
    fruit: apple
spec:
  template:
    metadata:
      labels:
        app: web
      annotations:
        color: orange
        fruit: apple
`);
    expect(messages(out)).toEqual([SET, SET]);
  });

  it("replaces an existing value in place and keeps its comment", async () => {
    const cm =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  annotations:\n    color: red # was red\n";
    const out = await renderMutator(`${FN}\nconfigMap:\n  color: orange`, { "c.yaml": cm });
    expect(out.files["c.yaml"]).toBe(cm.replace("color: red", "color: orange"));
  });

  it("fails on an empty annotation list and on foreign config kinds", async () => {
    const empty = await renderMutator(`${FN}\nconfigPath: c.yaml`, {
      "c.yaml": "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetAnnotations\nmetadata:\n  name: c\n",
    });
    expect(empty.error?.message).toContain(
      "failed to configure function: input annotation list cannot be empty",
    );
    const foreign = await renderMutator(`${FN}\nconfigPath: c.yaml`, {
      "c.yaml": "apiVersion: example.com/v1\nkind: Other\nmetadata:\n  name: c\n",
    });
    expect(foreign.error?.message).toContain(
      "`functionConfig` must be a `ConfigMap` or `SetAnnotations`",
    );
  });
});
