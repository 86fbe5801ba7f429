import { renderMutator } from "./helpers";

const FN = "image: gcr.io/kpt-fn/search-replace:v0.2.0";
const DEPLOYMENT =
  "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: the-deployment\n  namespace: my-space\n";

describe("search-replace", () => {
  it("catalog example search-replace-simple: by-path and by-value select the field put-value sets", async () => {
    const out = await renderMutator(
      `${FN}\nconfigMap:\n  by-path: metadata.name\n  by-value: the-deployment\n  put-value: my-deployment`,
      { "resources.yaml": DEPLOYMENT },
    );
    expect(out.files["resources.yaml"]).toBe(DEPLOYMENT.replace("the-deployment", "my-deployment"));
    expect(out.results.items[0].results).toEqual([
      {
        message: 'Mutated field value to "my-deployment"',
        field: { path: "metadata.name" },
        file: { path: "resources.yaml" },
      },
    ]);
  });

  it("README: by-value-regex capture groups resolve in put-value and put-comment", async () => {
    const resource =
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: something-foo\n  namespace: something-bar\n";
    const values = await renderMutator(
      `${FN}\nconfigMap:\n  by-value-regex: something-(.*)\n  put-value: my-project-id-\${1}`,
      {
        "r.yaml": resource,
      },
    );
    expect(values.files["r.yaml"]).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: my-project-id-foo\n  namespace: my-project-id-bar\n",
    );
    const comments = await renderMutator(
      `${FN}\nconfigMap:\n  by-value-regex: my-project-id-(.*)\n  put-comment: "kpt-set: \${project-id}-\${1}"`,
      { "r.yaml": values.files["r.yaml"] },
    );
    expect(comments.files["r.yaml"]).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: my-project-id-foo # kpt-set: ${project-id}-foo\n  namespace: my-project-id-bar # kpt-set: ${project-id}-bar\n",
    );
  });

  it("README: an absolute by-path with put-value creates the field in every resource", async () => {
    const out = await renderMutator(
      `${FN}\nconfigMap:\n  by-path: metadata.namespace\n  put-value: bookstore`,
      {
        "a.yaml": DEPLOYMENT,
        "b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n",
      },
    );
    expect(out.files["a.yaml"]).toContain("  namespace: bookstore\n");
    expect(out.files["b.yaml"]).toBe(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n  namespace: bookstore\n",
    );
  });

  it("README: ** and [*] path patterns with by-value only match (no mutation), by-file-path filters files", async () => {
    const pod = `apiVersion: v1
kind: Pod
metadata:
  name: p
spec:
  containers:
    - name: a
      ports:
        - containerPort: 80
    - name: b
      ports:
        - containerPort: 8080
`;
    const out = await renderMutator(
      `${FN}\nconfigMap:\n  by-path: spec.**.containerPort\n  by-value: "80"`,
      {
        "pod.yaml": pod,
        "sub/pod.yaml": pod.replace("name: p", "name: q"),
      },
    );
    expect(out.files["pod.yaml"]).toBe(pod);
    expect(out.results.items[0].results).toEqual([
      {
        message: 'Matched field value "80"',
        field: { path: "spec.containers[0].ports[0].containerPort" },
        file: { path: "pod.yaml" },
      },
      {
        message: 'Matched field value "80"',
        field: { path: "spec.containers[0].ports[0].containerPort" },
        file: { path: "sub/pod.yaml" },
      },
    ]);
    const filtered = await renderMutator(
      `${FN}\nconfigMap:\n  by-path: spec.containers[*].name\n  by-file-path: "sub/*.yaml"\n  put-value: renamed`,
      { "pod.yaml": pod, "sub/pod.yaml": pod },
    );
    expect(filtered.files["pod.yaml"]).toBe(pod);
    expect(filtered.files["sub/pod.yaml"].match(/name: renamed/g)).toHaveLength(2);
  });

  it("rejects unknown matchers with the catalog's message", async () => {
    const out = await renderMutator(`${FN}\nconfigMap:\n  by-name: x`, { "a.yaml": DEPLOYMENT });
    expect(out.ok).toBe(false);
    expect(out.error?.message).toContain(
      'failed to perform search-replace operation: "invalid matcher \\"by-name\\", must be one of [\\"by-value\\" \\"by-file-path\\" \\"by-value-regex\\" \\"by-path\\" \\"put-value\\" \\"put-comment\\"]"',
    );
  });
});
