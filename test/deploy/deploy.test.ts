import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_BLUEPRINTS } from "../../hack/demo/packages";
import { UID } from "../../hack/deploy/controller-image";
import { NODE_NETWORK } from "../../hack/node/config";
import { loadExamples } from "../support/examples";
import { applyBasicAuthSecret, registerRepository } from "../support/git";
import {
  createNamespace,
  getJson,
  kubectl,
  kubectlOk,
  listJson,
  mergePatch,
} from "../support/kubectl";
import {
  condition,
  files,
  lifecycleReached,
  PR,
  publishCopy,
  setLifecycle,
  yamlOf,
} from "../support/package-revisions";
import { eventually } from "../support/wait";
import { deployEnvironment, gitRepository } from "./environment";

// The module installed as a user installs it: `npx pepr build --custom-image`, the image in the
// node's containerd, `npx pepr deploy`, then Pods on a real node (hack/node/): admission from the
// API server to the webhook's Pods through their Service, the watcher reaching the API server
// through the `kubernetes` Service and git servers on the host over the node's bridge, with
// isomorphic-git (the image has no git). See README, "Installing on a real cluster". The node
// and the install are global setup's (./global-setup.ts), shared with the other deploy tests.

const timings: [string, number][] = [];
let mark = Date.now();
const step = (what: string) => {
  const now = Date.now();
  timings.push([what, (now - mark) / 1000]);
  mark = now;
};
const log = (what: string) => process.stderr.write(`[deploy] ${what}\n`);

const env = deployEnvironment();
let ns = "";

beforeAll(() => {
  ns = createNamespace("deploy");
});

afterAll(() => {
  log(timings.map(([what, s]) => `${s.toFixed(1)}s  ${what}`).join("\n[deploy] "));
});

/** The peak memory of a Pod's container, from its cgroup v1 memory controller on the node. */
function peakMemoryMiB(selector: string): string {
  try {
    const [pod] = listJson<{ status: { containerStatuses: { containerID: string }[] } }>(
      "pods",
      "pepr-system",
      selector,
    );
    const id = pod.status.containerStatuses[0].containerID.replace(/^containerd:\/\//, "");
    const find = spawnSync("find", ["/sys/fs/cgroup/memory/kubepods", "-type", "d", "-name", id], {
      encoding: "utf8",
    });
    const dir = find.stdout.split("\n")[0];
    const bytes = Number(readFileSync(join(dir, "memory.max_usage_in_bytes"), "utf8"));
    return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
  } catch (e) {
    return `unknown (${e instanceof Error ? e.message : e})`;
  }
}

interface Pod {
  metadata: { name: string; labels: Record<string, string> };
  spec: {
    nodeName: string;
    containers: {
      image: string;
      imagePullPolicy: string;
      securityContext?: { runAsUser?: number };
    }[];
  };
  status: { podIP: string };
}

it("runs the admission and watcher Pods from our image on the node, as uid 65532", () => {
  const pods = listJson<Pod>("pods", "pepr-system");
  const apps = pods.map(p => p.metadata.labels.app).sort();
  expect(apps).toEqual(["pepr-porch-pepr", "pepr-porch-pepr", "pepr-porch-pepr-watcher"]);
  for (const pod of pods) {
    expect(pod.spec.nodeName).toBe(env.nodeName);
    expect(pod.spec.containers[0].image).toBe(env.image);
    expect(pod.spec.containers[0].imagePullPolicy).toBe("IfNotPresent");
    expect(pod.spec.containers[0].securityContext?.runAsUser).toBe(UID);
  }
  step("check: Pods");
});

describe.each(
  loadExamples("packagevariantset")
    .filter(e => e.file.startsWith("invalid-"))
    .map(e => [e.file, e] as const),
)("invalid example %s", (_file, example) => {
  it("is denied by the webhook in the admission Pods, naming every problem", async () => {
    const result = await eventually("a webhook answer", () => {
      const r = kubectl(["apply", "--dry-run=server", "-n", ns, "-f", example.path]);
      // Right after a rollout an endpoint may still be on its way: that is not an answer.
      return r.stderr.includes("failed calling webhook") ? undefined : r;
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain(
      'admission webhook "pepr-porch-pepr.pepr.dev" denied the request',
    );
    for (const text of example.expected) expect(result.stderr).toContain(text);
    step("check: invalid PackageVariantSet denied");
  });
});

const clusters = ["cluster-01", "cluster-02", "cluster-03"];
const packages = ["app-a", "app-b", "app-c", "app-d"];
const expected = clusters.length * packages.length;
const urls = new Map<string, string>();

/** The deployment repositories' PackageRevisions of the fan-out. */
const downstream = () =>
  listJson<PR>("packagerevisions", ns).filter(pr => clusters.includes(pr.spec.repository));

/** The branches under `prefix` of a repository, as `git ls-remote` on the host sees them. */
function gitRefs(url: string, prefix: string): string[] {
  return execFileSync("git", ["ls-remote", url], { encoding: "utf8" })
    .split("\n")
    .map(line => line.split("\t")[1] ?? "")
    .filter(ref => ref.startsWith(prefix))
    .map(ref => ref.slice(prefix.length))
    .sort();
}

it("syncs a Repository behind basic auth from the watcher Pod (isomorphic-git, a Secret)", async () => {
  const url = await gitRepository(env, "blueprints", DEMO_BLUEPRINTS, "auth");
  expect(url.startsWith(`http://${NODE_NETWORK.gateway}:`)).toBe(true);
  applyBasicAuthSecret(ns, "blueprints-auth", {
    username: env.authGit.user,
    password: env.authGit.password,
  });
  registerRepository(ns, "blueprints", url, { secretRef: "blueprints-auth" });
  const ready = await eventually(
    "Repository blueprints Ready",
    () => {
      const c = condition(getJson<PR>("repository", "blueprints", ns), "Ready");
      return c?.status === "True" ? c : undefined;
    },
    120_000,
  );
  expect(ready.message).toMatch(/synced \d+ package revision/);
  expect(getJson<PR>("packagerevision", "blueprints.base-ns.v2", ns)?.spec.lifecycle).toBe(
    "Published",
  );
  step("check: Repository behind basic auth Ready");
});

it("fans a PackageVariantSet out to rendered drafts in git, the watcher Pod deleted midway", async () => {
  for (const name of clusters) {
    urls.set(name, await gitRepository(env, name));
    registerRepository(ns, name, urls.get(name)!, { deployment: true });
  }
  for (const name of clusters) {
    await eventually(`${name} Ready`, () =>
      condition(getJson<PR>("repository", name, ns), "Ready")?.status === "True" ? true : undefined,
    );
  }
  kubectlOk(
    ["apply", "-n", ns, "-f", "-"],
    JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha2",
      kind: "PackageVariantSet",
      metadata: { name: "fleet" },
      spec: {
        upstream: { repo: "blueprints", package: "base-ns", revision: "v2" },
        targets: [{ repositories: clusters.map(name => ({ name, packageNames: packages })) }],
      },
    }),
  );
  // Midway: some variants exist, not yet all their drafts.
  await eventually(
    "the fan-out under way",
    () => (listJson("packagevariants", ns).length > 0 ? true : undefined),
    60_000,
    50,
  );
  const before = downstream().length;
  log(`deleting the watcher Pod with ${before} of ${expected} drafts created`);
  kubectlOk(["delete", "pod", "-n", "pepr-system", "-l", "app=pepr-porch-pepr-watcher"]);

  await allVariantsReady();
  const drafts = downstream();
  expect(drafts).toHaveLength(expected);
  for (const draft of drafts) {
    expect(draft.spec.lifecycle).toBe("Draft");
    expect(condition(draft, "Rendered")?.status).toBe("True");
  }
  for (const name of clusters) {
    // One draft branch per package: none lost, none doubled by the restart.
    expect(gitRefs(urls.get(name)!, "refs/heads/drafts/")).toEqual(
      packages.map(p => `${p}/packagevariant-1`),
    );
  }
  log(
    `watcher container peak memory: ${peakMemoryMiB("app=pepr-porch-pepr-watcher")} (limit 512Mi)`,
  );
  step(`check: ${expected} drafts rendered and in git after a watcher restart`);
}, 600_000);

/** Waits until the set has `expected` PackageVariants, all Ready. */
async function allVariantsReady(): Promise<void> {
  await eventually(
    `${expected} PackageVariants Ready`,
    () => {
      const all = listJson<PR>("packagevariants", ns);
      const ready = all.filter(pv => condition(pv, "Ready")?.status === "True");
      return all.length === expected && ready.length === expected ? true : undefined;
    },
    300_000,
    1000,
  );
}

it("publishes the drafts: each package tagged v1 on main in git", async () => {
  const drafts = downstream();
  for (const draft of drafts) setLifecycle(ns, draft.metadata.name, "Proposed");
  for (const draft of drafts) await lifecycleReached(ns, draft.metadata.name, "Proposed");
  for (const draft of drafts) setLifecycle(ns, draft.metadata.name, "Published");
  for (const draft of drafts) await lifecycleReached(ns, draft.metadata.name, "Published");
  for (const name of clusters) {
    expect(gitRefs(urls.get(name)!, "refs/tags/")).toEqual(packages.map(p => `${p}/v1`));
    expect(gitRefs(urls.get(name)!, "refs/heads/drafts/")).toEqual([]);
  }
  step(`check: ${expected} revisions published`);
}, 300_000);

it("upgrades every variant to a new upstream revision published through the Pods", async () => {
  const v2 = getJson<PR>("packagerevision", "blueprints.base-ns.v2", ns)!;
  const v3Files = { ...files(ns, v2.metadata.name) };
  v3Files["resourcequota.yaml"] = v3Files["resourcequota.yaml"].replace(
    'requests.cpu: "4"',
    'requests.cpu: "6"',
  );
  await publishCopy(ns, v2, "v3", v3Files);
  mergePatch("packagevariantset", "fleet", ns, { spec: { upstream: { revision: "v3" } } });

  const upgrades = await eventually(
    `${expected} upgrade drafts rendered`,
    () => {
      const drafts = downstream().filter(
        pr => pr.spec.lifecycle === "Draft" && pr.status?.upstreamLock?.git?.ref === "base-ns/v3",
      );
      const done = drafts.filter(pr => condition(pr, "Rendered")?.status === "True");
      return done.length === expected ? drafts : undefined;
    },
    300_000,
    1000,
  );
  await allVariantsReady();
  for (const draft of upgrades) {
    expect(draft.spec.workspaceName).toBe("packagevariant-2");
    const quota = yamlOf(ns, draft.metadata.name, "resourcequota.yaml");
    expect(quota.spec.hard["requests.cpu"]).toBe("6");
    // The variant's own mutation survives the 3-way merge: the namespace is the package name.
    expect(quota.metadata.namespace).toBe(draft.spec.packageName);
  }
  for (const name of clusters) {
    expect(gitRefs(urls.get(name)!, "refs/heads/drafts/")).toEqual(
      packages.map(p => `${p}/packagevariant-2`),
    );
  }
  log(
    `watcher container peak memory: ${peakMemoryMiB("app=pepr-porch-pepr-watcher")} (limit 512Mi)`,
  );
  step(`check: ${expected} variants upgraded`);
}, 600_000);
