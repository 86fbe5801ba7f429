import { renderPackage } from "../../../lib/fn/render";
import { resultListToYaml } from "../../../lib/fn/results";
import { kptfile, renderMutator } from "./helpers";

const cm = (name: string, extra = ""): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}`;

describe("renderPackage", () => {
  it("hydrates subpackages first, depth-first and alphabetically; each pipeline sees its subtree only", async () => {
    const labels = (value: string): string =>
      `  mutators:\n    - image: set-labels\n      configMap:\n        rendered-by-${value}: "yes"\n`;
    const out = await renderPackage({
      Kptfile: kptfile(labels("root")),
      "root.yaml": cm("root"),
      "b/Kptfile": kptfile(labels("b"), "b"),
      "b/cm.yaml": cm("b"),
      "a/Kptfile": kptfile(labels("a"), "a"),
      "a/cm.yaml": cm("a"),
      "a/nested/Kptfile": kptfile(labels("nested"), "nested"),
      "a/nested/cm.yaml": cm("nested"),
    });
    expect(out.ok).toBe(true);
    expect(out.steps.map(step => step.package)).toEqual(["a/nested", "a", "b", ""]);
    expect(out.files["a/nested/cm.yaml"]).toContain("rendered-by-nested");
    expect(out.files["a/nested/cm.yaml"]).toContain("rendered-by-a");
    expect(out.files["a/nested/cm.yaml"]).toContain("rendered-by-root");
    expect(out.files["a/nested/cm.yaml"]).not.toContain("rendered-by-b");
    expect(out.files["root.yaml"]).not.toMatch(/rendered-by-(a|b|nested)/);
    // Kptfiles are not function input: set-labels never touched them.
    expect(out.files["a/Kptfile"]).toBe(kptfile(labels("a"), "a"));
  });

  it("resolves configPath in the subpackage, and a failing subpackage stops the render before its parent", async () => {
    const sub = `  mutators:\n    - image: set-namespace\n      configPath: ns.yaml\n`;
    const files = {
      Kptfile: kptfile(
        "  mutators:\n    - image: set-labels\n      configMap:\n        root: ran\n",
      ),
      "sub/Kptfile": kptfile(sub, "sub"),
      "sub/ns.yaml": cm("ns", "data:\n  namespace: sub-ns\n"),
      "sub/app.yaml": cm("app", "  namespace: x\n"),
    };
    const ok = await renderPackage(files);
    expect(ok.files["sub/app.yaml"]).toContain("namespace: sub-ns");
    const failing = await renderPackage({
      ...files,
      "sub/Kptfile": kptfile(sub.replace("ns.yaml", "gone.yaml"), "sub"),
    });
    expect(failing.error).toMatchObject({ package: "sub", stage: "mutator", index: 0 });
    expect(failing.steps).toEqual([]);
    expect(failing.files["sub/app.yaml"]).toBe(cm("app", "  namespace: x\n"));
  });

  it("runs mutators before validators (whatever their order in the Kptfile) and discards validator output", async () => {
    const pipeline = `  validators:
    - image: search-replace
      configMap:
        by-value: after-mutation
        put-value: changed-by-validator
  mutators:
    - image: search-replace
      configMap:
        by-value: before
        put-value: after-mutation
`;
    const out = await renderPackage({
      Kptfile: kptfile(pipeline),
      "c.yaml": cm("c", "data:\n  k: before\n"),
    });
    expect(out.steps.map(s => s.stage)).toEqual(["mutator", "validator"]);
    expect(out.results.items[1].results?.[0].message).toBe(
      'Mutated field value to "changed-by-validator"',
    );
    expect(out.files["c.yaml"]).toBe(cm("c", "data:\n  k: after-mutation\n"));
  });

  it("applies selectors (any of) and exclude (none of) to mutators", async () => {
    const fn = `image: set-annotations\nconfigMap:\n  picked: "yes"\nselectors:\n  - kind: ConfigMap\n  - name: svc\nexclude:\n  - labels:\n      skip: "true"`;
    const out = await renderMutator(fn, {
      "a.yaml": cm("a"),
      "b.yaml": cm("b", '  labels:\n    skip: "true"\n'),
      "svc.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: svc\n",
      "other.yaml": "apiVersion: v1\nkind: Service\nmetadata:\n  name: other\n",
    });
    const picked = Object.entries(out.files)
      .filter(([path, text]) => path !== "Kptfile" && text.includes("picked"))
      .map(([path]) => path);
    expect(picked.sort()).toEqual(["a.yaml", "svc.yaml"]);
  });

  it("reads configPath from the current resources, so an earlier mutator can change the config", async () => {
    const pipeline = `  mutators:
    - image: search-replace
      configMap:
        by-value: from-file
        put-value: from-mutator
    - image: set-namespace
      configPath: ns.yaml
`;
    const out = await renderPackage({
      Kptfile: kptfile(pipeline),
      "ns.yaml": cm(
        "ns",
        '  annotations:\n    config.kubernetes.io/local-config: "true"\ndata:\n  namespace: from-file\n',
      ),
      "app.yaml": cm("app", "  namespace: old\n"),
    });
    expect(out.files["app.yaml"]).toContain("namespace: from-mutator");
    const missing = await renderMutator("image: set-namespace\nconfigPath: nope.yaml", {
      "app.yaml": cm("app"),
    });
    expect(missing.error?.message).toBe(
      'package ".": mutator 0 (set-namespace): missing function config "nope.yaml"',
    );
  });

  it("names the image and the function catalog when no runtime can run a function", async () => {
    const out = await renderMutator("image: gcr.io/kpt-fn/starlark:v0.4.3", { "a.yaml": cm("a") });
    expect(out.ok).toBe(false);
    expect(out.error).toMatchObject({
      package: "",
      stage: "mutator",
      index: 0,
      reason: "FunctionUnavailable",
    });
    expect(out.error?.message).toBe(
      'package ".": mutator 0 (gcr.io/kpt-fn/starlark:v0.4.3): no runtime can run function image "gcr.io/kpt-fn/starlark:v0.4.3": ' +
        "no entry of the function catalog (the built-in defaults (apply-replacements, apply-setters, ensure-name-substring, " +
        "search-replace, set-annotations, set-labels, set-namespace)) matches it",
    );
    expect(out.results.items).toEqual([]);
  });

  it("keeps unchanged documents byte for byte and comments in changed ones", async () => {
    const text = `# file header
apiVersion: v1
kind: ConfigMap
metadata: {name: untouched}   # odd spacing stays
data:
  list: [a,  b]
---
# changed document
apiVersion: v1
kind: ConfigMap
metadata:
  name: changed # name comment
data:
  key: old # value comment
---
apiVersion: v1
kind: Secret
metadata:
  name: s
`;
    const out = await renderMutator(
      "image: search-replace\nconfigMap:\n  by-value: old\n  put-value: new",
      {
        "r.yaml": text,
        "README.md": "# not yaml\n",
        "notes.yaml": "just: a map\n",
        "broken.yaml": "a: [\n",
      },
    );
    expect(out.files["r.yaml"]).toBe(
      text.replace("key: old # value comment", "key: new # value comment"),
    );
    expect(out.files["README.md"]).toBe("# not yaml\n");
    expect(out.files["notes.yaml"]).toBe("just: a map\n");
    expect(out.files["broken.yaml"]).toBe("a: [\n");
  });

  it("stops at the first failing function, returning results so far and the output before the failure", async () => {
    const pipeline = `  mutators:
    - image: set-labels
      configMap:
        first: "yes"
    - image: set-namespace
    - image: set-annotations
      configMap:
        never: "run"
`;
    const out = await renderPackage({ Kptfile: kptfile(pipeline), "a.yaml": cm("a") });
    expect(out.ok).toBe(false);
    expect(out.results.exitCode).toBe(1);
    expect(out.results.items.map(item => [item.image, item.exitCode])).toEqual([
      ["set-labels", 0],
      ["set-namespace", 1],
    ]);
    expect(out.files["a.yaml"]).toContain('first: "yes"');
    expect(out.files["a.yaml"]).not.toContain("never");
    expect(out.error?.message).toContain("set-namespace");
  });

  it("produces a kpt FunctionResultList", async () => {
    const out = await renderMutator("image: set-labels\nconfigMap:\n  a: b", { "a.yaml": cm("a") });
    expect(out.results).toEqual({
      apiVersion: "kpt.dev/v1",
      kind: "FunctionResultList",
      metadata: { name: "fnresults" },
      exitCode: 0,
      items: [
        {
          image: "set-labels",
          runtime: "builtin",
          durationMs: expect.any(Number),
          exitCode: 0,
          results: [{ message: "set 1 labels in total", severity: "info" }],
        },
      ],
    });
    // The duration is whatever the run took: only its form is checked.
    const yaml = resultListToYaml(out.results).replace(/durationMs: \d+\n/, "durationMs: N\n");
    expect(yaml).toBe(`apiVersion: kpt.dev/v1
kind: FunctionResultList
metadata:
  name: fnresults
exitCode: 0
items:
  - image: set-labels
    runtime: builtin
    durationMs: N
    exitCode: 0
    results:
      - message: set 1 labels in total
        severity: info
`);
  });

  it("rejects invalid Kptfiles and packages without a root Kptfile", async () => {
    const both = await renderMutator("image: set-labels\nexec: ./fn", {});
    expect(both.error?.message).toBe(
      'Kptfile "Kptfile" is invalid: field `pipeline.mutators[0]`: must not specify both `image` and `exec` at the same time',
    );
    expect(both.error?.reason).toBe("InvalidKptfile");
    const none = await renderPackage({ "a.yaml": cm("a") });
    expect(none.ok).toBe(false);
    expect(none.error?.message).toContain("no root Kptfile");
    expect(none.error?.reason).toBe("InvalidKptfile");
    const failing = await renderMutator("image: set-labels", { "a.yaml": cm("a") });
    expect(failing.error?.reason).toBe("RenderFailed");
  });

  it.each([
    ["a list", "- a\n", "Kptfile is not a YAML mapping"],
    ["empty", "", "Kptfile is not a YAML mapping"],
    ["unparsable", "a: [\n", expect.stringMatching(/^Kptfile does not parse: /)],
  ])("refuses a root Kptfile that is %s, as the store and kpt do", async (_, text, message) => {
    const out = await renderPackage({ Kptfile: text, "a.yaml": cm("a") });
    expect(out.ok).toBe(false);
    expect(out.error).toMatchObject({ reason: "InvalidKptfile", message });
  });
});
