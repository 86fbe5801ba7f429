import { parse } from "yaml";
import {
  inClusterKey,
  injectConfig,
  injectedResourceName,
  MutationError,
  NO_RESOURCE_MESSAGE,
  planInjection,
  type FetchOutcome,
  type InClusterRef,
  type Injector,
} from "../../../lib/package-variant";
import * as documents from "../../../lib/krm/documents";
import { KPTFILE, NAMESPACE } from "./fixtures";

// Counts the parses (the scanning test below); every call still parses.
jest.mock("../../../lib/krm/documents", () => {
  const actual = jest.requireActual<typeof documents>("../../../lib/krm/documents");
  return { ...actual, parseYamlFile: jest.fn(actual.parseYamlFile) };
});

const ENDPOINTS = `apiVersion: example.com/v1
kind: Endpoints
metadata:
  name: service-endpoints
  annotations:
    kpt.dev/config-injection: required
spec:
  url: default # package default
`;
const SETTINGS = `apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  annotations:
    kpt.dev/config-injection: optional
data:
  level: low
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: plain
data: {}
`;
const pkg = {
  Kptfile: KPTFILE,
  "endpoints.yaml": ENDPOINTS,
  "settings.yaml": SETTINGS,
  "README.md": "# hi\n",
};

const endpoints = (name: string, url: string) => ({
  apiVersion: "example.com/v1",
  kind: "Endpoints",
  metadata: { name, namespace: NAMESPACE },
  spec: { url },
});
const configMap = (name: string, data: Record<string, string>) => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: NAMESPACE },
  data,
});

/** A fake cluster: objects by name; `errors` make a GET fail. */
function fetchAll(refs: InClusterRef[], objects: object[], errors: Record<string, string> = {}) {
  const outcomes = new Map<string, FetchOutcome>();
  for (const ref of refs) {
    const error = errors[ref.name];
    const found = objects.find(o => {
      const obj = o as { apiVersion: string; kind: string; metadata: { name: string } };
      return (
        obj.apiVersion === ref.apiVersion && obj.kind === ref.kind && obj.metadata.name === ref.name
      );
    });
    outcomes.set(
      inClusterKey(ref),
      error
        ? { status: "error", message: error }
        : found
          ? { status: "found", object: found }
          : { status: "notFound" },
    );
  }
  return outcomes;
}

function run(
  files: Record<string, string>,
  injectors: Injector[],
  objects: object[],
  errors?: Record<string, string>,
  deployment = true,
) {
  const plan = planInjection(files, injectors, NAMESPACE);
  const fetched = fetchAll(plan.fetch, objects, errors);
  return injectConfig(files, injectors, NAMESPACE, fetched, deployment) as Record<string, string>;
}
const docs = (text: string) => text.split(/^---\n/m).map(d => parse(d));
const conditions = (files: Record<string, string>) => parse(files.Kptfile).status?.conditions;

describe("planInjection", () => {
  it("finds the annotated objects and their condition types", () => {
    const plan = planInjection(pkg, [], NAMESPACE);
    expect(plan.points.map(p => [p.file, p.conditionType, p.required])).toEqual([
      ["endpoints.yaml", "config.injection.Endpoints.service-endpoints", true],
      ["settings.yaml", "config.injection.ConfigMap.settings", false],
    ]);
    expect(plan.fetch).toEqual([]);
  });

  it("lists each object to fetch once, in injector order, filtered by group/version/kind", () => {
    const injectors: Injector[] = [
      { name: "us-east1" },
      { kind: "ConfigMap", name: "cm-only" },
      { group: "example.com", version: "v1", kind: "Endpoints", name: "ep-only" },
      { group: "", name: "core-only" },
      { version: "v2", name: "wrong-version" },
      { kind: "", version: "", name: "empty-means-any" },
    ];
    const fetch = planInjection(pkg, injectors, NAMESPACE).fetch.map(
      r => `${r.apiVersion} ${r.kind} ${r.name}`,
    );
    expect(fetch).toEqual([
      "example.com/v1 Endpoints us-east1",
      "example.com/v1 Endpoints ep-only",
      "example.com/v1 Endpoints empty-means-any",
      "v1 ConfigMap us-east1",
      "v1 ConfigMap cm-only",
      "v1 ConfigMap core-only",
      "v1 ConfigMap empty-means-any",
    ]);
    expect(
      planInjection(pkg, injectors, NAMESPACE).fetch.every(r => r.namespace === NAMESPACE),
    ).toBe(true);
  });

  it("rejects an invalid annotation value", () => {
    const bad = { "a.yaml": ENDPOINTS.replace("required", "sometimes") };
    const plan = () => planInjection(bad, [], NAMESPACE);
    expect(plan).toThrow(MutationError);
    expect(plan).toThrow(
      'errors in injection points: a.yaml: Endpoints/service-endpoints has invalid "kpt.dev/config-injection" annotation value of "sometimes"',
    );
  });

  it("rejects ambiguous condition types (same kind and name in two places)", () => {
    const dup = {
      "a.yaml": ENDPOINTS,
      "b.yaml": ENDPOINTS.replace("example.com/v1", "other.io/v1"),
    };
    expect(() => planInjection(dup, [], NAMESPACE)).toThrow(
      'errors in injection points: duplicate injection conditionType "config.injection.Endpoints.service-endpoints" (a.yaml and b.yaml)',
    );
  });

  it("names the file of a YAML syntax error", () => {
    expect(() => planInjection({ "x.yaml": "a: [\n" }, [], NAMESPACE)).toThrow(/^x.yaml: /);
  });
});

describe("injectConfig", () => {
  it("annotates kpt.dev/injected-resource-name, and keeps the reference's annotation in step where a package has it", () => {
    const legacy = {
      ...pkg,
      "endpoints.yaml": pkg["endpoints.yaml"].replace(
        "kpt.dev/config-injection: required",
        "kpt.dev/config-injection: required\n    kpt.dev/injected-resource: old",
      ),
    };
    expect(legacy["endpoints.yaml"]).toContain("kpt.dev/injected-resource: old");
    const out = run(legacy, [{ name: "us-east1" }], [endpoints("us-east1", "https://east")]);
    const [ep] = docs(out["endpoints.yaml"]);
    expect(ep.metadata.annotations).toMatchObject({
      "kpt.dev/injected-resource-name": "us-east1",
      "kpt.dev/injected-resource": "us-east1",
    });
    expect(injectedResourceName({ "kpt.dev/injected-resource": "old" })).toBe("old");
    expect(injectedResourceName({ "kpt.dev/injected-resource-name": "new" })).toBe("new");
  });

  it("copies spec (other kinds) and data (ConfigMap), annotates, and records conditions and gates", () => {
    const out = run(
      pkg,
      [{ name: "us-east1" }],
      [endpoints("us-east1", "https://east"), configMap("us-east1", { level: "high" })],
    );
    const [ep] = docs(out["endpoints.yaml"]);
    expect(ep.spec).toEqual({ url: "https://east" });
    expect(ep.metadata.annotations["kpt.dev/injected-resource-name"]).toBe("us-east1");
    expect(ep.metadata.annotations["kpt.dev/injected-resource"]).toBeUndefined();
    const [settings, plain] = docs(out["settings.yaml"]);
    expect(settings.data).toEqual({ level: "high" });
    expect(plain.data).toEqual({});
    expect(conditions(out)).toEqual([
      {
        type: "config.injection.ConfigMap.settings",
        status: "True",
        reason: "ConfigInjected",
        message: 'injected resource "us-east1" from cluster',
      },
      {
        type: "config.injection.Endpoints.service-endpoints",
        status: "True",
        reason: "ConfigInjected",
        message: 'injected resource "us-east1" from cluster',
      },
    ]);
    expect(parse(out.Kptfile).info).toEqual({
      description: "nginx",
      readinessGates: [{ conditionType: "config.injection.Endpoints.service-endpoints" }],
    });
    expect(out["README.md"]).toBe(pkg["README.md"]);
  });

  it("takes the first injector whose object exists", () => {
    const out = run(
      pkg,
      [{ name: "missing" }, { name: "second" }, { name: "third" }],
      [endpoints("second", "2"), endpoints("third", "3")],
    );
    expect(docs(out["endpoints.yaml"])[0].spec).toEqual({ url: "2" });
  });

  it("does not skip an injector whose object could not be read", () => {
    const out = run(pkg, [{ name: "first" }, { name: "second" }], [endpoints("second", "2")], {
      first: "endpoints.example.com is forbidden",
    });
    expect(out["endpoints.yaml"]).toBe(ENDPOINTS);
    expect(conditions(out)[1]).toEqual({
      type: "config.injection.Endpoints.service-endpoints",
      status: "False",
      reason: "NoResourceSelected",
      message: "endpoints.example.com is forbidden",
    });
  });

  it.each([
    ["no injectors", [], [], "no injectors defined"],
    ["no object found", [{ name: "nope" }], [], NO_RESOURCE_MESSAGE],
    ["no injector of that kind", [{ kind: "Other", name: "x" }], [], NO_RESOURCE_MESSAGE],
    [
      "an object without spec",
      [{ name: "bare" }],
      [{ apiVersion: "example.com/v1", kind: "Endpoints", metadata: { name: "bare" } }],
      'field "spec" not found in resource "bare"',
    ],
  ])(
    "leaves the point as is and sets False/NoResourceSelected for %s",
    (_, injectors, objects, message) => {
      const out = run(pkg, injectors as Injector[], objects);
      expect(out["endpoints.yaml"]).toBe(ENDPOINTS);
      const condition = conditions(out).find((c: { type: string }) => c.type.includes("Endpoints"));
      expect(condition).toEqual({
        type: "config.injection.Endpoints.service-endpoints",
        status: "False",
        reason: "NoResourceSelected",
        message,
      });
      // Required points are gates whether or not they were injected; optional ones never are.
      expect(parse(out.Kptfile).info.readinessGates).toEqual([
        { conditionType: "config.injection.Endpoints.service-endpoints" },
      ]);
    },
  );

  it("merges with existing conditions and gates, sorted, removing none", () => {
    const kptfile = `${KPTFILE.replace("info:\n  description: nginx\n", "info:\n  readinessGates:\n    - conditionType: z.other\n    - conditionType: a.other\n")}status:\n  conditions:\n    - type: z.other\n      status: "True"\n      reason: X\n      message: kept\n`;
    const out = run({ ...pkg, Kptfile: kptfile }, [], []);
    expect(
      parse(out.Kptfile).info.readinessGates.map((g: { conditionType: string }) => g.conditionType),
    ).toEqual(["a.other", "config.injection.Endpoints.service-endpoints", "z.other"]);
    expect(conditions(out).map((c: { type: string }) => c.type)).toEqual([
      "config.injection.ConfigMap.settings",
      "config.injection.Endpoints.service-endpoints",
      "z.other",
    ]);
  });

  it("adds no gates outside a deployment repository (a blueprint is published unfilled), keeping existing ones", () => {
    const kptfile = KPTFILE.replace(
      "info:\n  description: nginx\n",
      "info:\n  description: nginx\n  readinessGates:\n    - conditionType: a.other\n",
    );
    const out = run({ ...pkg, Kptfile: kptfile }, [], [], undefined, false);
    expect(parse(out.Kptfile).info.readinessGates).toEqual([{ conditionType: "a.other" }]);
    expect(conditions(out).map((c: { status: string }) => c.status)).toEqual(["False", "False"]);
    expect(parse(run(pkg, [], [], undefined, false).Kptfile).info.readinessGates).toBeUndefined();
  });

  it("is idempotent: a second run with the same objects returns the same files", () => {
    const objects = [
      endpoints("us-east1", "https://east"),
      configMap("us-east1", { level: "high" }),
    ];
    const once = run(pkg, [{ name: "us-east1" }], objects);
    const twice = run(once, [{ name: "us-east1" }], objects);
    expect(twice).toEqual(once);
    for (const path of Object.keys(once)) expect(twice[path]).toBe(once[path]);
  });

  it("returns a package without injection points untouched", () => {
    const files = {
      Kptfile: KPTFILE,
      "cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n",
    };
    expect(injectConfig(files, [{ name: "x" }], NAMESPACE, new Map(), true)).toBe(files);
  });

  it("refuses to guess when the caller did not fetch a planned object", () => {
    expect(() => injectConfig(pkg, [{ name: "x" }], NAMESPACE, new Map(), true)).toThrow(
      /was not fetched/,
    );
  });

  it("needs a Kptfile to record the outcome", () => {
    const { Kptfile: _, ...noKptfile } = pkg;
    expect(() => run(noKptfile, [], [])).toThrow('"Kptfile" not found in the downstream package');
  });
});

describe("scanning for injection points", () => {
  it("parses each file text once, however often the same package is planned and injected", () => {
    const parse = documents.parseYamlFile as jest.MockedFunction<typeof documents.parseYamlFile>;
    parse.mockClear();
    {
      // Texts no earlier test scanned (the scans are kept process-wide).
      const files = {
        Kptfile: `${KPTFILE}# once\n`,
        "endpoints.yaml": `${ENDPOINTS}# once\n`,
        "settings.yaml": `${SETTINGS}# once\n`,
      };
      const injectors = [{ name: "service-endpoints" }, { name: "settings" }];
      const objects = [endpoints("service-endpoints", "https://edge"), configMap("settings", {})];
      for (let i = 0; i < 3; i++) planInjection(files, injectors, NAMESPACE);
      expect(parse).toHaveBeenCalledTimes(3);
      parse.mockClear();
      const inject = () =>
        injectConfig(
          files,
          injectors,
          NAMESPACE,
          fetchAll(planInjection(files, injectors, NAMESPACE).fetch, objects),
          true,
        );
      const first = inject();
      // Only the files the injection edits are parsed again (the two with points, and the
      // Kptfile recording the outcome), afresh each time: no edit shows in the next injection.
      expect(parse).toHaveBeenCalledTimes(3);
      expect(inject()).toEqual(first);
      expect(first["endpoints.yaml"]).toContain("url: https://edge");
      // What is kept is shared by every reconcile (every tenant's): nobody may change it.
      const [point] = planInjection(files, injectors, NAMESPACE).points;
      expect(() => Object.assign(point, { name: "changed" })).toThrow(TypeError);
    }
  });
});
