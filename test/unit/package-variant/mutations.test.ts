import { parse } from "yaml";
import {
  applyMutations,
  comparePackages,
  inClusterKey,
  MutationError,
  objectsToFetch,
  type FetchOutcome,
} from "../../../lib/package-variant";
import { KPTFILE, PACKAGE_CONTEXT, variant } from "./fixtures";

const POINT = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations:
    kpt.dev/config-injection: optional
data:
  level: low
`;
const pkg = { Kptfile: KPTFILE, "package-context.yaml": PACKAGE_CONTEXT, "settings.yaml": POINT };
const pv = variant({
  packageContext: { data: { region: "us-east1" } },
  pipeline: { mutators: [{ image: "set-namespace:v1", configMap: { namespace: "prod" } }] },
  injectors: [{ name: "east" }],
});

function fetched(files: Record<string, string>, data: Record<string, string>) {
  const map = new Map<string, FetchOutcome>();
  for (const ref of objectsToFetch(files, pv)) {
    map.set(inClusterKey(ref), {
      status: "found",
      object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: ref.name }, data },
    });
  }
  return map;
}

const DEPLOYMENT = { deployment: true };

describe("applyMutations", () => {
  it("applies package context, pipeline and injection", () => {
    const { files, changed } = applyMutations(pkg, pv, fetched(pkg, { level: "high" }), DEPLOYMENT);
    expect(changed).toBe(true);
    expect(parse(files["package-context.yaml"]).data).toEqual({
      name: "nginx",
      region: "us-east1",
    });
    expect(parse(files.Kptfile).pipeline.mutators[0].name).toBe("PackageVariant.my-pv..0");
    expect(parse(files["settings.yaml"]).data).toEqual({ level: "high" });
    expect(parse(files.Kptfile).status.conditions[0].reason).toBe("ConfigInjected");
  });

  it("reports no change the second time, with every file's text kept (no empty commits)", () => {
    const once = applyMutations(pkg, pv, fetched(pkg, { level: "high" }), DEPLOYMENT).files;
    const again = applyMutations(once, pv, fetched(once, { level: "high" }), DEPLOYMENT);
    expect(again.changed).toBe(false);
    for (const path of Object.keys(once)) expect(again.files[path]).toBe(once[path]);
  });

  it("reports a change when an injected object changes", () => {
    const once = applyMutations(pkg, pv, fetched(pkg, { level: "high" }), DEPLOYMENT).files;
    expect(applyMutations(once, pv, fetched(once, { level: "max" }), DEPLOYMENT).changed).toBe(
      true,
    );
  });

  it("reports no change for a PackageVariant without mutations on a package without injection points", () => {
    const plain = {
      Kptfile: KPTFILE,
      "deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n",
    };
    const result = applyMutations(plain, variant(), new Map(), DEPLOYMENT);
    expect(result.changed).toBe(false);
    expect(result.files).toEqual(plain);
  });

  it("surfaces a missing package context as a MutationError", () => {
    const { "package-context.yaml": _, ...noContext } = pkg;
    expect(() => applyMutations(noContext, pv, fetched(noContext, {}), DEPLOYMENT)).toThrow(
      MutationError,
    );
  });
});

describe("comparePackages", () => {
  const kptfile =
    "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: a\ninfo:\n  keywords: [a, b]\n";
  it.each([
    [
      "a reformatted Kptfile",
      { Kptfile: kptfile },
      {
        Kptfile:
          "kind: Kptfile\napiVersion: kpt.dev/v1\nmetadata: {name: a}\ninfo:\n  keywords:\n  - a\n  - b\n",
      },
      false,
    ],
    [
      "a Kptfile with another value",
      { Kptfile: kptfile },
      { Kptfile: kptfile.replace("[a, b]", "[b, a]") },
      true,
    ],
    ["an added file", { Kptfile: kptfile }, { Kptfile: kptfile, "x.yaml": "a: 1\n" }, true],
    ["a removed file", { Kptfile: kptfile, "x.yaml": "a: 1\n" }, { Kptfile: kptfile }, true],
    [
      "a non-YAML file differing in whitespace only",
      { "README.md": "a\n" },
      { "README.md": "a \n" },
      true,
    ],
    ["an unparsable YAML file", { "x.yaml": "a: [\n" }, { "x.yaml": "a: [ \n" }, true],
  ])("%s: changed=%s", (_, before, after, changed) => {
    const result = comparePackages(before, after);
    expect(result.changed).toBe(changed);
    if (!changed) expect(result.files).toEqual(before);
  });
});
