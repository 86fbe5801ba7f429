import { renderMutator } from "./helpers";

const FN = "image: gcr.io/kpt-fn/ensure-name-substring:v0.2.0";

const RESOURCES = `apiVersion: v1
kind: ConfigMap
metadata:
  name: the-map
  namespace: the-namespace
data:
  some-key: some-value
---
apiVersion: v1
kind: Pod
metadata:
  name: the-pod
  namespace: the-namespace
spec:
  containers:
    - name: test-container
      image: k8s.gcr.io/busybox
      env:
        - name: SOME_KEY
          valueFrom:
            configMapKeyRef:
              name: the-map
              key: some-key
---
apiVersion: v1
kind: Namespace
metadata:
  name: old-name
---
apiVersion: dev.example.com/v1
kind: MyResource
metadata:
  name: the-cr
  namespace: the-namespace
spec:
  name: foo
`;

describe("ensure-name-substring", () => {
  it("catalog example ensure-name-substring-prefix: prepends, updates the ConfigMap reference, skips the Namespace", async () => {
    const out = await renderMutator(`${FN}\nconfigMap:\n  prepend: prod-`, {
      "resources.yaml": RESOURCES,
    });
    expect(out.ok).toBe(true);
    expect(out.files["resources.yaml"]).toBe(
      RESOURCES.replace("name: the-map\n  namespace", "name: prod-the-map\n  namespace")
        .replace("name: the-pod", "name: prod-the-pod")
        .replace("              name: the-map", "              name: prod-the-map")
        .replace("name: the-cr", "name: prod-the-cr"),
    );
  });

  it("EnsureNameSubstring config: appends, with additionalNameFields, and is idempotent", async () => {
    const config = `apiVersion: fn.kpt.dev/v1alpha1
kind: EnsureNameSubstring
metadata:
  name: my-config
  annotations:
    config.kubernetes.io/local-config: "true"
substring: -prod
editMode: append
additionalNameFields:
  - path: spec/name
    kind: MyResource
`;
    const fn = `${FN}\nconfigPath: fn-config.yaml`;
    const once = await renderMutator(fn, { "fn-config.yaml": config, "resources.yaml": RESOURCES });
    const text = once.files["resources.yaml"];
    expect(text).toContain("  name: the-pod-prod\n");
    expect(text).toContain("              name: the-map-prod\n");
    expect(text).toContain("spec:\n  name: foo-prod\n");
    expect(text).toContain("  name: old-name\n");
    // The config resource is part of the input and, as in the catalog, gets the suffix too.
    expect(once.files["fn-config.yaml"]).toContain("  name: my-config-prod\n");
    const twice = await renderMutator(fn, {
      "fn-config.yaml": once.files["fn-config.yaml"],
      "resources.yaml": text,
    });
    expect(twice.files["resources.yaml"]).toBe(text);
  });

  it("catalog example ensure-name-substring-depends-on: depends-on targets in the package are renamed", async () => {
    const resources = `apiVersion: v1
kind: Deployment
metadata:
  annotations:
    config.kubernetes.io/depends-on: /namespaces/default/StatefulSet/wordpress-mysql
  name: wordpress
  namespace: default
---
apiVersion: v1
kind: StatefulSet
metadata:
  name: wordpress-mysql
  namespace: default
---
apiVersion: v1
kind: Deployment
metadata:
  annotations:
    config.kubernetes.io/depends-on: /namespaces/default/StatefulSet/outside-resource
  name: bar
  namespace: default
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  annotations:
    config.kubernetes.io/depends-on: rbac.authorization.k8s.io/ClusterRole/secret-reader
  name: read-secrets-global
roleRef:
  apiGroup: rbac.authorization.k8s.io
  kind: ClusterRole
  name: secret-reader
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: secret-reader
`;
    const out = await renderMutator(`${FN}\nconfigMap:\n  prepend: prod-`, {
      "resources.yaml": resources,
    });
    const text = out.files["resources.yaml"];
    expect(text).toContain("depends-on: /namespaces/default/StatefulSet/prod-wordpress-mysql\n");
    expect(text).toContain("depends-on: /namespaces/default/StatefulSet/outside-resource\n");
    expect(text).toContain(
      "depends-on: rbac.authorization.k8s.io/ClusterRole/prod-secret-reader\n",
    );
    expect(text).toContain("  kind: ClusterRole\n  name: prod-secret-reader\n");
    // five metadata names and the roleRef
    expect(text.match(/^ {2}name: prod-/gm)).toHaveLength(6);
  });

  it("rejects a ConfigMap with more than one entry", async () => {
    const out = await renderMutator(`${FN}\nconfigMap:\n  prepend: a-\n  append: -b`, {
      "resources.yaml": RESOURCES,
    });
    expect(out.ok).toBe(false);
    expect(out.error?.message).toContain(
      "failed to load the `functionConfig`: only 1 entry is allowed in the ConfigMap, but got: 2",
    );
  });
});
