import { createGitRepository, kptfile, registerRepository, revision } from "../support/git";
import {
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  mergePatch,
} from "../support/kubectl";
import {
  condition,
  createRevision,
  PR,
  rendered,
  setLifecycle,
} from "../support/package-revisions";
import { eventually } from "../support/wait";

// Issue 12: every PackageVariant / PackageVariantSet condition tells the truth, seen by kubectl.
interface Status {
  conditions?: { type: string; status: string; reason: string; message: string }[];
}
type WithStatus = { status?: Status };

let ns: string;
const apply = (yaml: string) => kubectlOk(["apply", "-n", ns, "-f", "-"], yaml);
const pvYaml = (name: string, spec: string) =>
  `apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  name: ${name}\nspec:\n${spec}`;
const readyOf = (kind: string, name: string) =>
  condition(getJson<WithStatus>(kind, name, ns) as PR | undefined, "Ready");
const endpoints = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/local-config: "true"\ndata:\n  db: unset\n`;

beforeAll(async () => {
  ns = createNamespace("e2e-truth");
  const blueprints = await createGitRepository("blueprints", [
    { name: "base", revisions: [revision("v1", { Kptfile: kptfile("base") })] },
    {
      name: "app",
      revisions: [revision("v1", { Kptfile: kptfile("app"), "endpoints.yaml": endpoints })],
    },
  ]);
  registerRepository(ns, "blueprints", blueprints);
  registerRepository(ns, "deployments", await createGitRepository("deployments"), {
    deployment: true,
  });
  await eventually("blueprints mirrored", () =>
    getJson("packagerevision", "blueprints.app.v1", ns),
  );
});
afterAll(() => deleteNamespace(ns));

it("is Ready=False with the source's failure when its draft cannot be created", async () => {
  kubectlOk(
    ["apply", "-n", ns, "-f", "-"],
    JSON.stringify({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevision",
      metadata: { name: "deployments.broken.ws1" },
      spec: {
        packageName: "broken",
        repository: "deployments",
        workspaceName: "ws1",
        lifecycle: "Draft",
        source: { cloneFrom: { upstreamRef: { name: "blueprints.missing.v1" } } },
      },
    }),
  );
  apply(
    pvYaml(
      "broken",
      `  upstream: {repo: blueprints, package: base, revision: 1}
  downstream: {repo: deployments, package: broken}
  adoptionPolicy: adoptExisting
`,
    ),
  );
  const ready = await eventually(
    "broken Ready=False with the source's failure",
    () => {
      const c = readyOf("packagevariant", "broken");
      return c?.status === "False" && c.reason === "Error" ? c : undefined;
    },
    60_000,
  );
  expect(ready.message).toMatch(
    /^waiting for PackageRevision "deployments.broken.ws1" to be created from its source: create draft: .*blueprints.missing.v1.* not found$/,
  );
});

it("is Ready=False, reason RenderFailed, naming its draft, while the draft does not render its mutations", async () => {
  // The mutation prepends a function no catalog entry runs: git keeps the unmutated package.
  apply(
    pvYaml(
      "unrendered",
      `  upstream: {repo: blueprints, package: base, revision: 1}
  downstream: {repo: deployments, package: unrendered}
  pipeline:
    mutators:
    - {name: unmapped, image: example.com/fns/not-in-the-catalog:v1}
`,
    ),
  );
  const ready = await eventually(
    "unrendered Ready=False RenderFailed",
    () => {
      const c = readyOf("packagevariant", "unrendered");
      return c?.status === "False" && c.reason === "RenderFailed" ? c : undefined;
    },
    90_000,
  );
  expect(ready.message).toMatch(
    /^PackageRevision "deployments\.unrendered\.packagevariant-1" did not render: FunctionUnavailable: .*not-in-the-catalog/,
  );
});

it("copies the Kptfile's readiness gates to the PackageRevision, so an unfilled required point blocks publishing", async () => {
  apply(
    pvYaml(
      "app-bare",
      `  upstream: {repo: blueprints, package: app, revision: 1}
  downstream: {repo: deployments, package: app-bare}
`,
    ),
  );
  const name = "deployments.app-bare.packagevariant-1";
  await eventually("the draft", () => getJson("packagerevision", name, ns), 60_000);
  const pr = await eventually(
    "readiness gate on the PackageRevision",
    async () => {
      await rendered(ns, name);
      const got = getJson<{ spec: { readinessGates?: { conditionType: string }[] } }>(
        "packagerevision",
        name,
        ns,
      );
      return got?.spec.readinessGates?.length ? got : undefined;
    },
    60_000,
  );
  expect(pr.spec.readinessGates).toEqual([
    { conditionType: "config.injection.ConfigMap.endpoints" },
  ]);
  mergePatch("packagerevision", name, ns, { spec: { lifecycle: "Proposed" } });
  const publish = setLifecycle(ns, name, "Published");
  expect(publish.code).not.toBe(0);
  expect(publish.stderr).toContain(
    "spec.lifecycle: readiness gates not met: config.injection.ConfigMap.endpoints",
  );
  expect(
    kubectl(["get", "packagerevision", name, "-n", ns, "-o", "jsonpath={.spec.lifecycle}"]).stdout,
  ).toBe("Proposed");
});

it("refuses to copy a revision that is not published", async () => {
  createRevision(ns, "blueprints", "scratch", "v1", { init: { description: "work in progress" } });
  await rendered(ns, "blueprints.scratch.v1");
  const copy = kubectl(
    ["apply", "-n", ns, "-f", "-"],
    JSON.stringify({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevision",
      metadata: { name: "blueprints.scratch.v2" },
      spec: {
        packageName: "scratch",
        repository: "blueprints",
        workspaceName: "v2",
        lifecycle: "Draft",
        source: { copyFrom: { name: "blueprints.scratch.v1" } },
      },
    }),
  );
  expect(copy.code).not.toBe(0);
  expect(copy.stderr).toContain(
    'spec.source.copyFrom "blueprints.scratch.v1" is Draft: only a Published revision can be copied (publish it first)',
  );
});

it("stops a set's target whose downstream repository is missing, naming it, until it is registered", async () => {
  apply(`apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: to-nowhere}
spec:
  upstream: {repo: blueprints, package: base, revision: 1}
  targets:
  - repositories: [{name: nowhere}]
`);
  const target = await eventually(
    "the failed target",
    () => {
      const set = getJson<{ status?: { targets?: Record<string, string>[] } }>(
        "packagevariantset",
        "to-nowhere",
        ns,
      );
      return set?.status?.targets?.find(t => t.repository === "nowhere");
    },
    60_000,
  );
  expect(target).toEqual({
    packageVariant: "",
    repository: "nowhere",
    package: "base",
    ready: "False",
    message: 'spec.targets[0]: downstream repository "nowhere" not found',
  });
  expect(getJson("packagevariant", "to-nowhere-nowhere-base", ns)).toBeUndefined();
  registerRepository(ns, "nowhere", await createGitRepository("nowhere"), { deployment: true });
  await eventually(
    "the PackageVariant once the repository exists",
    () => getJson("packagevariant", "to-nowhere-nowhere-base", ns),
    60_000,
  );
});

it("creates the drafts of a PackageVariant whose name is longer than 63 characters", async () => {
  const long = `a-package-variant-with-a-name-longer-than-any-label-value-may-be-${"x".repeat(8)}`;
  expect(long.length).toBeGreaterThan(63);
  apply(
    pvYaml(
      long,
      `  upstream: {repo: blueprints, package: base, revision: 1}
  downstream: {repo: deployments, package: long-named}
`,
    ),
  );
  const name = "deployments.long-named.packagevariant-1";
  const draft = await eventually(
    "the draft",
    () =>
      getJson<{
        metadata: { labels: Record<string, string>; annotations: Record<string, string> };
      }>("packagerevision", name, ns),
    60_000,
  );
  const label = draft.metadata.labels["config.porch.kpt.dev/packagevariant"];
  expect(label.length).toBeLessThanOrEqual(63);
  expect(draft.metadata.annotations["config.porch.kpt.dev/packagevariant-name"]).toBe(long);
  await eventually(
    `${long} Ready`,
    () => (readyOf("packagevariant", long)?.status === "True" ? true : undefined),
    60_000,
  );
  const listed = kubectlOk([
    "get",
    "packagerevisions",
    "-n",
    ns,
    "-l",
    `config.porch.kpt.dev/packagevariant=${label}`,
    "-o",
    "name",
  ]);
  expect(listed.trim()).toBe(`packagerevision.porch.kpt.dev/${name}`);
});

it("reports a set's target as failed, naming the owner, when its PackageVariant name is taken", async () => {
  apply(
    pvYaml(
      "clash-deployments-base",
      `  upstream: {repo: blueprints, package: base, revision: 1}
  downstream: {repo: deployments, package: made-by-hand}
`,
    ),
  );
  apply(`apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata: {name: clash}
spec:
  upstream: {repo: blueprints, package: base, revision: 1}
  targets:
  - repositories: [{name: deployments}]
`);
  const status = await eventually(
    "the failed target",
    () => {
      const set = getJson<{
        status?: { targets?: Record<string, string>[]; counts?: Record<string, number> };
      }>("packagevariantset", "clash", ns);
      return set?.status?.targets?.[0]?.ready === "False" ? set.status : undefined;
    },
    60_000,
  );
  expect(status.targets?.[0]).toMatchObject({
    packageVariant: "clash-deployments-base",
    message:
      'PackageVariant "clash-deployments-base" already exists and is not controlled by this set (it has no controller)',
  });
  expect(status.counts).toEqual({ desired: 1, ready: 0, failed: 1 });
});
