import { renderMutator } from "./helpers";

const FN = "image: gcr.io/kpt-fn/apply-setters:v0.2.0";

describe("apply-setters", () => {
  it("README example: scalar setters, a typed number and a quoted partial pattern", async () => {
    const resources = `# resources.yaml
apiVersion: apps/v1
kind: Deployment
metadata:
  name: my-nginx
spec:
  replicas: 4 # kpt-set: \${nginx-replicas}
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: "nginx:1.16.1" # kpt-set: nginx:\${tag}
        ports:
        - protocol: TCP
          containerPort: 80
`;
    const out = await renderMutator(`${FN}\nconfigMap:\n  nginx-replicas: "3"\n  tag: 1.16.2`, {
      "resources.yaml": resources,
    });
    expect(out.ok).toBe(true);
    expect(out.files["resources.yaml"]).toBe(
      resources.replace("replicas: 4", "replicas: 3").replace('"nginx:1.16.1"', '"nginx:1.16.2"'),
    );
    expect(out.results.items[0].results).toEqual([
      {
        message: 'set field value to "3"',
        severity: "info",
        resourceRef: { apiVersion: "apps/v1", kind: "Deployment", name: "my-nginx" },
        field: { path: "spec.replicas", currentValue: "4", proposedValue: "3" },
        file: { path: "resources.yaml" },
      },
      {
        message: 'set field value to "nginx:1.16.2"',
        severity: "info",
        resourceRef: { apiVersion: "apps/v1", kind: "Deployment", name: "my-nginx" },
        field: {
          path: "spec.template.spec.containers[0].image",
          currentValue: "nginx:1.16.1",
          proposedValue: "nginx:1.16.2",
        },
        file: { path: "resources.yaml" },
      },
    ]);
  });

  it("README example: an array setter from a configPath ConfigMap replaces the list", async () => {
    const out = await renderMutator(`${FN}\nconfigPath: setters.yaml`, {
      "setters.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: apply-setters-fn-config\n  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  env: |\n    - prod\n    - dev\n`,
      "r.yaml":
        "apiVersion: v1\nkind: MyKind\nmetadata:\n  name: foo\nenvironments: # kpt-set: ${env}\n  - dev\n  - stage\n",
    });
    expect(out.files["r.yaml"]).toBe(
      "apiVersion: v1\nkind: MyKind\nmetadata:\n  name: foo\nenvironments: # kpt-set: ${env}\n  - prod\n  - dev\n",
    );
  });

  it("derives unset setters from the current value and empties a list to a flow []", async () => {
    const resource = `apiVersion: v1
kind: MyKind
metadata:
  name: foo
image: nginx:1.7.1 # kpt-set: \${image}:\${tag}
host: my-app.dev.example.com # kpt-set: my-app.\${stage}.\${domain}.\${tld}
environments: [a, b] # kpt-set: \${env}
`;
    const out = await renderMutator(`${FN}\nconfigMap:\n  tag: 1.8.0\n  tld: org\n  env: ""`, {
      "r.yaml": resource,
    });
    expect(out.files["r.yaml"]).toBe(`apiVersion: v1
kind: MyKind
metadata:
  name: foo
image: nginx:1.8.0 # kpt-set: \${image}:\${tag}
host: my-app.dev.example.org # kpt-set: my-app.\${stage}.\${domain}.\${tld}
environments: [] # kpt-set: \${env}
`);
  });

  it("fails when a pattern needs a setter that is neither given nor derivable, and reports no matches", async () => {
    const resource =
      "apiVersion: v1\nkind: X\nmetadata:\n  name: x\nimage: nginx # kpt-set: ${image}:${tag}\n";
    const out = await renderMutator(`${FN}\nconfigMap:\n  image: ubuntu`, { "r.yaml": resource });
    expect(out.ok).toBe(false);
    expect(out.error?.message).toContain(
      "failed to apply setters: values for setters [${tag}] must be provided",
    );
    expect(out.files["r.yaml"]).toBe(resource);

    const none = await renderMutator(`${FN}\nconfigMap:\n  other: 1`, { "r.yaml": resource });
    expect(none.results.items[0].results).toEqual([{ message: "no matches for input setter(s)" }]);
  });
});
