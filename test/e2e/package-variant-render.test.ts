import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createGitRepository,
  kptfile,
  registerRepository,
  revision,
  pushesTo,
} from "../support/git";
import { createNamespace, deleteNamespace, getJson, kubectl, kubectlOk } from "../support/kubectl";
import { condition, PR, rendered, yamlOf } from "../support/package-revisions";
import { eventually } from "../support/wait";

// A variant as Nephio users write them (a package context key, a prepended mutator and an
// injected ConfigMap): its new draft is made with the mutations and rendered once, so the
// draft's branch gets one commit in one push, and the variant's check writes nothing.

let ns: string;
let deploymentsUrl: string;
const apply = (yaml: string) => kubectlOk(["apply", "-n", ns, "-f", "-"], yaml);

const pipeline =
  "pipeline:\n  mutators:\n    - image: gcr.io/kpt-fn/set-labels:v0.2.0\n      configMap:\n        tier: base\n";
const quota = `apiVersion: v1\nkind: ResourceQuota\nmetadata:\n  name: quota\nspec:\n  hard:\n    cpu: "1"\n`;
const endpoints = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/local-config: "true"\ndata:\n  db: unset\n`;

/** The subjects of the commits `branch` adds to main, read from the git server. */
function commitsOn(url: string, branch: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), "porch-e2e-commits-"));
  try {
    execFileSync("git", ["clone", "--quiet", "--bare", url, dir]);
    return execFileSync("git", ["--git-dir", dir, "log", "--format=%s", `main..${branch}`], {
      encoding: "utf8",
    })
      .split("\n")
      .filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

beforeAll(async () => {
  ns = createNamespace("e2e-pv-render");
  const blueprints = await createGitRepository("blueprints", [
    {
      name: "fleet",
      revisions: [
        revision("v1", {
          Kptfile: kptfile("fleet", pipeline),
          "quota.yaml": quota,
          "endpoints.yaml": endpoints,
        }),
      ],
    },
  ]);
  deploymentsUrl = await createGitRepository("deployments");
  registerRepository(ns, "blueprints", blueprints);
  registerRepository(ns, "deployments", deploymentsUrl, { deployment: true });
  await eventually("blueprints mirrored", () =>
    getJson("packagerevision", "blueprints.fleet.v1", ns),
  );
});
afterAll(() => deleteNamespace(ns));

it("creates a variant's draft with its mutations in one render and one commit", async () => {
  apply(
    `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: eu-endpoints}\ndata: {db: db.eu.example}\n`,
  );
  const pushesBefore = pushesTo(deploymentsUrl);
  apply(`apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata: {name: fleet-eu}
spec:
  upstream: {repo: blueprints, package: fleet, revision: 1}
  downstream: {repo: deployments, package: fleet-eu}
  packageContext: {data: {region: eu}}
  pipeline:
    mutators:
      - {name: ns, image: gcr.io/kpt-fn/set-namespace:v0.4.1, configMap: {namespace: fleet-eu}}
  injectors:
    - {kind: ConfigMap, name: eu-endpoints}
`);
  const name = "deployments.fleet-eu.packagevariant-1";
  await eventually(
    "the variant Ready",
    () => {
      const pv = getJson<PR>("packagevariant", "fleet-eu", ns);
      return condition(pv, "Ready")?.status === "True" ? pv : undefined;
    },
    90_000,
  );
  await rendered(ns, name);

  // The mutations are there, rendered: the prepended function ran on the injected package.
  expect(yamlOf(ns, name, "package-context.yaml").data).toMatchObject({ region: "eu" });
  expect(yamlOf(ns, name, "endpoints.yaml").data).toEqual({ db: "db.eu.example" });
  const q = yamlOf(ns, name, "quota.yaml");
  expect(q.metadata.namespace).toBe("fleet-eu");
  expect(q.metadata.labels).toEqual({ tier: "base" });
  const kpt = yamlOf(ns, name, "Kptfile");
  expect(kpt.pipeline.mutators.map((m: { name?: string }) => m.name)).toEqual([
    "PackageVariant.fleet-eu.ns.0",
    undefined,
  ]);

  // One push and one commit on the draft's branch: the source's, rendered; no second render.
  expect(pushesTo(deploymentsUrl) - pushesBefore).toBe(1);
  expect(commitsOn(deploymentsUrl, "drafts/fleet-eu/packagevariant-1")).toEqual([`clone ${name}`]);
  // The variant's check found nothing to write into the files.
  const prr = JSON.parse(
    kubectlOk([
      "get",
      "packagerevisionresources",
      name,
      "-n",
      ns,
      "-o",
      "json",
      "--show-managed-fields",
    ]),
  ) as { metadata: { managedFields?: { manager: string }[] } };
  expect(prr.metadata.managedFields?.map(f => f.manager)).not.toContain(
    "packagevariant-controller",
  );
});

it("refuses a client's revision that names a variant whose mutations its source would apply", () => {
  const pv = getJson<{ metadata: { uid: string } }>("packagevariant", "fleet-eu", ns);
  const result = kubectl(
    ["create", "-n", ns, "-f", "-"],
    JSON.stringify({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevision",
      metadata: {
        name: "deployments.fleet-eu.mine",
        annotations: { "config.porch.kpt.dev/source-mutations": pv?.metadata.uid },
        ownerReferences: [
          {
            apiVersion: "config.porch.kpt.dev/v1alpha1",
            kind: "PackageVariant",
            name: "fleet-eu",
            uid: pv?.metadata.uid,
            controller: true,
          },
        ],
      },
      spec: {
        repository: "deployments",
        packageName: "fleet-eu",
        workspaceName: "mine",
        lifecycle: "Draft",
        source: { cloneFrom: { upstreamRef: { name: "blueprints.fleet.v1" } } },
      },
    }),
  );
  expect(result.code).not.toBe(0);
  expect(result.stderr).toContain(
    "metadata.annotations[config.porch.kpt.dev/source-mutations] is set only by the operator, on the drafts its PackageVariants create; it cannot be set or changed",
  );
});
