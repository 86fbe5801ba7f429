import { messages, renderMutator } from "./helpers";

const FN = "image: ghcr.io/kptdev/krm-functions-catalog/set-namespace:latest";
const UPSTREAM = "internal.kpt.dev/upstream-identifier";

describe("set-namespace", () => {
  it("catalog example set-namespace-simple: every namespace field moves to the new namespace", async () => {
    const resources = `apiVersion: v1
kind: Service
metadata:
  name: the-service
  namespace: example
---
apiVersion: v1
kind: Namespace
metadata:
  name: example
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crd
spec:
  conversion:
    strategy: Webhook
    webhook:
      clientConfig:
        service:
          name: crd-svc
          namespace: example
---
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: api
spec:
  service:
    name: api-svc
    namespace: example
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: crb
subjects:
  - kind: ServiceAccount
    name: default
    namespace: example
`;
    const out = await renderMutator(`${FN}\nconfigMap:\n  namespace: example-ns`, {
      "resources.yaml": resources,
    });
    expect(out.ok).toBe(true);
    expect(out.files["resources.yaml"]).toBe(resources.replace(/: example$/gm, ": example-ns"));
    expect(messages(out)).toContain(
      'namespace [example] updated to "example-ns", 5 value(s) changed',
    );
  });

  it("catalog test replace-all: resources from one upstream namespace all move, with the catalog's messages", async () => {
    const resources = [
      `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: example1\n  annotations:\n    ${UPSTREAM}: "|Namespace|~C|example"\n`,
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: the-service\n  namespace: example2\n  annotations:\n    ${UPSTREAM}: "|Service|example|the-service"\n`,
      `apiVersion: apiregistration.k8s.io/v1\nkind: APIService\nmetadata:\n  name: api\n  annotations:\n    ${UPSTREAM}: apiregistration.k8s.io|APIService|~C|api\nspec:\n  service:\n    name: api-svc\n    namespace: example4\n`,
      `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: crb\n  annotations:\n    ${UPSTREAM}: rbac.authorization.k8s.io|ClusterRoleBinding|~C|crb\nsubjects:\n  - kind: ServiceAccount\n    name: default\n    namespace: example5\n`,
    ].join("---\n");
    const out = await renderMutator(`${FN}\nconfigMap:\n  namespace: new-ns`, {
      "resources.yaml": resources,
    });
    expect(messages(out)).toEqual([
      'namespace [example1 example2 example4 example5] updated to "new-ns", 4 value(s) changed',
      "all `depends-on` annotations are up-to-date. no `namespace` changed",
    ]);
    expect(out.results.items[0].results?.every(r => r.severity === "info")).toBe(true);
    expect(out.files["resources.yaml"].match(/new-ns/g)).toHaveLength(4);
  });

  it("catalog test crd-no-webhook-strategy: only CRDs with a conversion webhook service get a namespace", async () => {
    const crd = (name: string, conversion: string): string =>
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${name}\n  annotations:\n    ${UPSTREAM}: apiextensions.k8s.io|CustomResourceDefinition|~C|${name}\nspec:\n  group: example.com\n${conversion}`;
    const resources = [
      `apiVersion: v1\nkind: Service\nmetadata:\n  name: the-service\n  namespace: example\n  annotations:\n    ${UPSTREAM}: "|Service|example|the-service"\n`,
      crd("crd-no-conversion", ""),
      crd("crd-strategy-none", "  conversion:\n    strategy: None\n"),
      crd(
        "crd-with-webhook",
        "  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        service:\n          name: webhook-svc\n          namespace: old-ns\n",
      ),
      crd(
        "crd-webhook-no-ns",
        "  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        service:\n          name: webhook-svc\n",
      ),
      crd(
        "crd-webhook-url",
        "  conversion:\n    strategy: Webhook\n    webhook:\n      clientConfig:\n        url: https://webhook.example.com/convert\n",
      ),
    ].join("---\n");
    const out = await renderMutator(`${FN}\nconfigMap:\n  namespace: new-ns`, {
      "resources.yaml": resources,
    });
    expect(messages(out)[0]).toBe(
      'namespace [default example old-ns] updated to "new-ns", 3 value(s) changed',
    );
    const text = out.files["resources.yaml"];
    expect(text).toContain(
      "        service:\n          name: webhook-svc\n          namespace: new-ns\n",
    );
    expect(text).not.toContain("crd-no-conversion\nspec:\n  group: example.com\n  conversion");
    expect(text).toContain("        url: https://webhook.example.com/convert\n");
  });

  it("accepts a SetNamespace config from configPath and leaves local-config resources alone", async () => {
    const config = `apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamespace\nmetadata:\n  name: ns\n  annotations:\n    config.kubernetes.io/local-config: "true"\nnamespace: staging\n`;
    const out = await renderMutator(`${FN}\nconfigPath: fn-config.yaml`, {
      "fn-config.yaml": config,
      "app.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n",
    });
    expect(out.ok).toBe(true);
    expect(out.files["fn-config.yaml"]).toBe(config);
    expect(out.files["app.yaml"]).toBe(
      "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: app\n  namespace: staging\n",
    );
  });

  it("takes the namespace from the package context ConfigMap (kptfile.kpt.dev data.name)", async () => {
    const context = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  name: my-variant\n`;
    const out = await renderMutator(`${FN}\nconfigPath: package-context.yaml`, {
      "package-context.yaml": context,
      "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: example\n",
    });
    expect(out.files["cm.yaml"]).toContain("namespace: my-variant");
    expect(out.files["package-context.yaml"]).toBe(context);
  });

  it("with namespaceMatcher only the matching namespace changes", async () => {
    const resources =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  namespace: one\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n  namespace: two\n";
    const out = await renderMutator(
      `${FN}\nconfigMap:\n  namespace: three\n  namespaceMatcher: one`,
      { "r.yaml": resources },
    );
    expect(out.files["r.yaml"]).toBe(resources.replace("namespace: one", "namespace: three"));
  });

  it("updates RoleBinding subjects and depends-on annotations that point at declared resources", async () => {
    const resources = `apiVersion: v1
kind: ServiceAccount
metadata:
  name: sa
  namespace: example
  annotations:
    config.kubernetes.io/depends-on: /namespaces/example/ServiceAccount/foo
---
kind: RoleBinding
apiVersion: rbac.authorization.k8s.io/v1
metadata:
  name: rb
  namespace: example
  annotations:
    config.kubernetes.io/depends-on: /namespaces/example/ServiceAccount/sa
subjects:
  - kind: ServiceAccount
    name: default
    namespace: example
roleRef:
  kind: Role
  name: confluent-operator
  apiGroup: rbac.authorization.k8s.io
`;
    const out = await renderMutator(`${FN}\nconfigMap:\n  namespace: prod`, {
      "r.yaml": resources,
    });
    const text = out.files["r.yaml"];
    expect(text).toContain("depends-on: /namespaces/example/ServiceAccount/foo");
    expect(text).toContain("depends-on: /namespaces/prod/ServiceAccount/sa");
    expect(text).toContain("    name: default\n    namespace: prod\n");
    expect(messages(out)).toContain(
      '`depends-on` annotation namespace [example] updated to "prod", 1 value(s) changed',
    );
  });

  it("fails with the catalog messages for a missing config and for several upstream namespaces", async () => {
    const missing = await renderMutator(FN, {
      "r.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
    });
    expect(missing.ok).toBe(false);
    expect(missing.error?.message).toContain(
      "FunctionConfig is missing. Expect `ConfigMap.v1` or `SetNamespace.v1alpha1.fn.kpt.dev`",
    );
    const two = [1, 2].map(
      i =>
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c${i}\n  namespace: n${i}\n  annotations:\n    ${UPSTREAM}: "|ConfigMap|n${i}|c${i}"\n`,
    );
    const out = await renderMutator(`${FN}\nconfigMap:\n  namespace: x`, {
      "r.yaml": two.join("---\n"),
    });
    expect(out.ok).toBe(false);
    expect(messages(out)[0]).toMatch(
      /^unable to use origin `namespace` to match\. expect a single upstream namespace, found \[n1 n2\]/,
    );
  });
});
