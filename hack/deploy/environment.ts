import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { kubectl } from "../cluster/control-plane";
import type { GitServer } from "../git-server";
import { startGitServerProcess } from "../git-server-process";
import { ensureNodeClusterBinaries, NodeCluster, startNodeCluster } from "../node/cluster";
import { NODE_NETWORK } from "../node/config";
import { ensureControllerImage } from "./controller-image";
import { ensureFunctionImages, type FunctionImages } from "./function-images";
import { peprBuildAndDeploy, prepareInstallDir } from "./install";

// The module installed as a user installs it, on the real local node: what `npm run test:deploy`
// checks and `npm start -- --pods` shows. README, "Installing on a real cluster".

export interface PodsEnvironment {
  cluster: NodeCluster;
  kubeconfig: string;
  /** The controller image the Deployments run (imported into the node's containerd). */
  image: string;
  /** The function wrapper's image and the labeller function's (imported likewise). */
  functionImages: FunctionImages;
  /** Open git server on the node's bridge address, where Pods reach the host. */
  git: GitServer;
  /** The same behind basic auth. */
  authGit: GitServer & { user: string; password: string };
  stop(): Promise<void>;
}

/** The setting every install on this node needs: its git servers speak plain http. */
export const POD_INSTALL_ENV = { PORCH_PEPR_GIT_ALLOW_HTTP: "any" } as const;

/**
 * Builds what is missing (cached), starts the control plane and node, imports the controller
 * image, starts git servers on the bridge, and runs `npx pepr build --custom-image` and
 * `npx pepr deploy --yes --image` from a copy of the module; returns once the Pods are Ready.
 * Root only. stop() undoes it all; `onStop` gets it as soon as the node runs, for a caller
 * interrupted while the install is still under way (a failed start stops itself).
 */
export async function startPodsEnvironment(
  stateDir: string,
  onStep: (what: string) => void,
  onStop?: (stop: () => Promise<void>) => void,
): Promise<PodsEnvironment> {
  // This process writes fixtures to the same http git servers the install reaches.
  process.env.PORCH_PEPR_GIT_ALLOW_HTTP ??= POD_INSTALL_ENV.PORCH_PEPR_GIT_ALLOW_HTTP;
  await ensureNodeClusterBinaries(onStep);
  onStep("controller image (cached after the first build)");
  const controller = ensureControllerImage(onStep);
  onStep("function images: the wrapper and the labeller (cached after the first build)");
  const functionImages = await ensureFunctionImages(onStep);
  const cluster = await startNodeCluster(stateDir, { onStep });
  const kubeconfig = cluster.controlPlane.kubeconfig;
  const started: { close(): Promise<void> }[] = [];
  let installDir: string | undefined;
  const stop = async () => {
    await Promise.all(started.map(s => s.close()));
    await cluster.stop();
    if (installDir) rmSync(installDir, { recursive: true, force: true });
  };
  onStop?.(stop);
  try {
    onStep("importing the controller image into the node's containerd");
    cluster.node.importImage(controller.archive);
    onStep("importing the function wrapper and labeller images");
    cluster.node.importImage(functionImages.wrapper.archive);
    cluster.node.importImage(functionImages.labeller.archive);
    onStep("starting git servers on the node's bridge address");
    const logDir = join(stateDir, "logs");
    const gitRoot = join(stateDir, "git");
    const git = await startGitServerProcess(
      "git-server",
      gitRoot,
      logDir,
      undefined,
      NODE_NETWORK.gateway,
    );
    started.push(git);
    const auth = { user: "porch", password: randomBytes(12).toString("hex") };
    const authGit = {
      ...(await startGitServerProcess(
        "git-server-auth",
        join(stateDir, "git-auth"),
        logDir,
        auth,
        NODE_NETWORK.gateway,
      )),
      ...auth,
    };
    started.push(authGit);
    onStep(`npx pepr build --custom-image ${controller.ref}; npx pepr deploy --yes`);
    installDir = prepareInstallDir(POD_INSTALL_ENV);
    peprBuildAndDeploy(installDir, controller.ref, kubeconfig);
    onStep("waiting for the admission and watcher Pods");
    kubectl(kubeconfig, [
      "wait",
      "--for=condition=Ready",
      "pod",
      "--all",
      "-n",
      "pepr-system",
      "--timeout=180s",
    ]);
    return { cluster, kubeconfig, image: controller.ref, functionImages, git, authGit, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
