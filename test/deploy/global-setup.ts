import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binDir } from "../../hack/cluster/paths";
import { startPodsEnvironment } from "../../hack/deploy/environment";
import { testFunctions } from "../../hack/deploy/function-images";
import { DEPLOY_ENV, type DeploySetup } from "./environment";

const log = (what: string) => process.stderr.write(`[deploy] ${what}\n`);

/**
 * Starts the real local node with the module installed by `npx pepr deploy` once for every
 * deploy test file (a node costs about a minute): test files run in other contexts, so what
 * they need travels in environment variables (./environment.ts). Before that, the Go tests of
 * hack/functions (the function wrapper and the labeller), which npm test runs here: this suite
 * is the one that needs Go and builds those binaries anyway.
 */
export default async function globalSetup(): Promise<void> {
  if (process.getuid?.() !== 0)
    throw new Error(
      "the deploy suite needs root (a real node: bridge, containerd, runc); as another user run npm run test:unit and npm run test:e2e",
    );
  log("go test ./... in hack/functions");
  for (const line of testFunctions().trim().split("\n")) log(line);
  const stateDir = mkdtempSync(join(tmpdir(), "porch-pepr-deploy-"));
  const timings: [string, number][] = [];
  let mark = Date.now();
  let phase = "start";
  // Each step's time is booked when the next one starts.
  const step = (what: string) => {
    const now = Date.now();
    timings.push([phase, (now - mark) / 1000]);
    mark = now;
    phase = what;
  };
  // A failed start stops what it started (startPodsEnvironment); its state goes with it, as
  // global teardown does not run after a failed global setup.
  const env = await startPodsEnvironment(stateDir, what => {
    step(what);
    log(what);
  }).catch(error => {
    rmSync(stateDir, { recursive: true, force: true });
    throw error;
  });
  step("");
  const e = process.env;
  e.KUBECONFIG = env.kubeconfig;
  e.PATH = `${binDir()}:${e.PATH}`;
  e[DEPLOY_ENV.state] = stateDir;
  e[DEPLOY_ENV.image] = env.image;
  e[DEPLOY_ENV.node] = env.cluster.node.name;
  e[DEPLOY_ENV.gitUrl] = env.git.url;
  e[DEPLOY_ENV.gitRoot] = env.git.root;
  e[DEPLOY_ENV.authGitUrl] = env.authGit.url;
  e[DEPLOY_ENV.authGitRoot] = env.authGit.root;
  e[DEPLOY_ENV.authGitUser] = env.authGit.user;
  e[DEPLOY_ENV.authGitPassword] = env.authGit.password;
  e[DEPLOY_ENV.wrapperImage] = env.functionImages.wrapper.ref;
  e[DEPLOY_ENV.labellerImage] = env.functionImages.labeller.ref;
  const setup: DeploySetup = { env, stateDir, timings };
  (globalThis as Record<string, unknown>).__PORCH_PEPR_DEPLOY__ = setup;
}
