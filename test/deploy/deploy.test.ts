import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binDir } from "../../hack/cluster/paths";
import { DEMO_BLUEPRINTS, DemoPackage } from "../../hack/demo/packages";
import { ensureControllerImage, UID } from "../../hack/deploy/controller-image";
import { peprBuildAndDeploy, prepareInstallDir } from "../../hack/deploy/install";
import { GitServer } from "../../hack/git-server";
import { startGitServerProcess } from "../../hack/git-server-process";
import { ensureNodeClusterBinaries, NodeCluster, startNodeCluster } from "../../hack/node/cluster";
import { NODE_NETWORK } from "../../hack/node/config";
import { loadExamples } from "../support/examples";
import { publishTo, registerRepository } from "../support/git";
import { createNamespace, getJson, kubectl, kubectlOk, listJson } from "../support/kubectl";
import { eventually } from "../support/wait";

// The module installed as a user installs it: `npx pepr build --custom-image`, the image in the
// node's containerd, `npx pepr deploy`, then Pods on a real node (hack/node/): admission from the
// API server to the webhook's Pods through their Service, the watcher reaching the API server
// through the `kubernetes` Service and git servers on the host over the node's bridge, with
// isomorphic-git (the image has no git). See README, "Installing on a real cluster".

const timings: [string, number][] = [];
let mark = Date.now();
const step = (what: string) => {
  const now = Date.now();
  timings.push([what, (now - mark) / 1000]);
  mark = now;
};
const log = (what: string) => process.stderr.write(`[deploy] ${what}\n`);

let stateDir = "";
let installDir = "";
let cluster: NodeCluster | undefined;
let git: GitServer | undefined;
let image = "";
let ns = "";

/** A bare repository on the host's git server with `packages` published; its URL. */
async function gitRepository(name: string, packages: readonly DemoPackage[] = []) {
  const { url } = await git!.createBareRepo(name);
  await publishTo(url, packages, { cacheParent: stateDir });
  return url;
}

interface Conditioned {
  status?: { conditions?: { type: string; status: string; message?: string }[] };
}
const conditionOf = (obj: Conditioned | undefined, type: string) =>
  obj?.status?.conditions?.find(c => c.type === type);

beforeAll(async () => {
  if (process.getuid?.() !== 0) throw new Error("npm run test:deploy needs root: a real node");
  await ensureNodeClusterBinaries(log);
  step("node and control plane binaries (cached)");
  const controller = ensureControllerImage(log);
  image = controller.ref;
  step("controller image (cached)");
  stateDir = mkdtempSync(join(tmpdir(), "porch-pepr-deploy-"));
  cluster = await startNodeCluster(stateDir, { onStep: log });
  process.env.KUBECONFIG = cluster.controlPlane.kubeconfig;
  process.env.PATH = `${binDir()}:${process.env.PATH}`;
  step("control plane and node up");
  cluster.node.importImage(controller.archive);
  step("image imported into the node's containerd");
  // Pods reach the host at the bridge's address, not at its loopback.
  git = await startGitServerProcess(
    "git-server",
    join(stateDir, "git"),
    join(stateDir, "logs"),
    undefined,
    NODE_NETWORK.gateway,
  );
  // The install's setting, as a user sets it in package.json before building: http git URLs
  // (the test's git servers are plain http on the bridge; https is always allowed).
  installDir = prepareInstallDir({ PORCH_PEPR_GIT_ALLOW_HTTP: "any" });
  log(`npx pepr build --custom-image ${image}; npx pepr deploy --yes --image ${image}`);
  peprBuildAndDeploy(installDir, image, cluster.controlPlane.kubeconfig);
  step("npx pepr build + npx pepr deploy (Deployments rolled out)");
  kubectlOk([
    "wait",
    "--for=condition=Ready",
    "pod",
    "--all",
    "-n",
    "pepr-system",
    "--timeout=180s",
  ]);
  ns = createNamespace("deploy");
}, 40 * 60_000);

afterAll(async () => {
  const stopping = Date.now();
  await git?.close();
  await cluster?.stop();
  timings.push(["stop", (Date.now() - stopping) / 1000]);
  log(timings.map(([what, s]) => `${s.toFixed(1)}s  ${what}`).join("\n[deploy] "));
  if (installDir) rmSync(installDir, { recursive: true, force: true });
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}, 120_000);

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
    expect(pod.spec.nodeName).toBe(cluster!.node.name);
    expect(pod.spec.containers[0].image).toBe(image);
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

it("syncs a Repository on a host git server from the watcher Pod (isomorphic-git)", async () => {
  const url = await gitRepository("blueprints", DEMO_BLUEPRINTS);
  expect(url.startsWith(`http://${NODE_NETWORK.gateway}:`)).toBe(true);
  registerRepository(ns, "blueprints", url);
  const ready = await eventually(
    "Repository blueprints Ready",
    () => {
      const c = conditionOf(getJson<Conditioned>("repository", "blueprints", ns), "Ready");
      return c?.status === "True" ? c : undefined;
    },
    120_000,
  );
  expect(ready.message).toMatch(/synced \d+ package revision/);
  const v2 = getJson<Conditioned & { spec: { lifecycle: string } }>(
    "packagerevision",
    "blueprints.base-ns.v2",
    ns,
  );
  expect(v2?.spec.lifecycle).toBe("Published");
  step("check: Repository Ready");
});

it("fans a PackageVariantSet out to rendered drafts in git, the watcher Pod deleted midway", async () => {
  const clusters = ["cluster-01", "cluster-02", "cluster-03"];
  const packages = ["app-a", "app-b", "app-c", "app-d"];
  const urls = new Map<string, string>();
  for (const name of clusters) {
    urls.set(name, await gitRepository(name));
    registerRepository(ns, name, urls.get(name)!, { deployment: true });
  }
  for (const name of clusters) {
    await eventually(`${name} Ready`, () =>
      conditionOf(getJson<Conditioned>("repository", name, ns), "Ready")?.status === "True"
        ? true
        : undefined,
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
  const expected = clusters.length * packages.length;
  // Midway: some variants exist, not yet all their drafts.
  await eventually(
    "the fan-out under way",
    () => (listJson("packagevariants", ns).length > 0 ? true : undefined),
    60_000,
    50,
  );
  const before = listJson("packagerevisions", ns).filter(
    (pr: { spec?: { lifecycle?: string } }) => pr.spec?.lifecycle === "Draft",
  ).length;
  log(`deleting the watcher Pod with ${before} of ${expected} drafts created`);
  kubectlOk(["delete", "pod", "-n", "pepr-system", "-l", "app=pepr-porch-pepr-watcher"]);

  const variants = await eventually(
    `${expected} PackageVariants Ready`,
    () => {
      const all = listJson<Conditioned>("packagevariants", ns);
      const ready = all.filter(pv => conditionOf(pv, "Ready")?.status === "True");
      return all.length === expected && ready.length === expected ? all : undefined;
    },
    300_000,
    1000,
  );
  expect(variants).toHaveLength(expected);
  const drafts = listJson<Conditioned & { spec: { lifecycle: string; repository: string } }>(
    "packagerevisions",
    ns,
  ).filter(pr => clusters.includes(pr.spec.repository));
  expect(drafts).toHaveLength(expected);
  for (const draft of drafts) {
    expect(draft.spec.lifecycle).toBe("Draft");
    expect(conditionOf(draft, "Rendered")?.status).toBe("True");
  }
  for (const name of clusters) {
    const branches = execFileSync("git", ["ls-remote", "--heads", urls.get(name)!], {
      encoding: "utf8",
    })
      .split("\n")
      .filter(line => line.includes("refs/heads/drafts/"))
      .map(line => line.split("refs/heads/")[1])
      .sort();
    // One draft branch per package: none lost, none doubled by the restart.
    expect(branches).toEqual(packages.map(p => `drafts/${p}/packagevariant-1`));
  }
  log(
    `watcher container peak memory: ${peakMemoryMiB("app=pepr-porch-pepr-watcher")} (limit 512Mi)`,
  );
  step(`check: ${expected} drafts rendered and in git after a watcher restart`);
}, 600_000);
