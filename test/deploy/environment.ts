import type { DemoPackage } from "../../hack/demo/packages";
import type { PodsEnvironment } from "../../hack/deploy/environment";
import { createBareRepo } from "../../hack/git-server";
import { publishTo } from "../support/git";

/** What global setup hands the deploy test files, by environment variable. */
export const DEPLOY_ENV = {
  state: "PORCH_PEPR_DEPLOY_STATE",
  image: "PORCH_PEPR_DEPLOY_IMAGE",
  node: "PORCH_PEPR_DEPLOY_NODE",
  gitUrl: "PORCH_PEPR_DEPLOY_GIT_URL",
  gitRoot: "PORCH_PEPR_DEPLOY_GIT_ROOT",
  authGitUrl: "PORCH_PEPR_DEPLOY_AUTH_GIT_URL",
  authGitRoot: "PORCH_PEPR_DEPLOY_AUTH_GIT_ROOT",
  authGitUser: "PORCH_PEPR_DEPLOY_AUTH_GIT_USER",
  authGitPassword: "PORCH_PEPR_DEPLOY_AUTH_GIT_PASSWORD",
  wrapperImage: "PORCH_PEPR_DEPLOY_WRAPPER_IMAGE",
  labellerImage: "PORCH_PEPR_DEPLOY_LABELLER_IMAGE",
} as const;

/** What global setup keeps for global teardown (same process). */
export interface DeploySetup {
  env: PodsEnvironment;
  stateDir: string;
  timings: [string, number][];
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the deploy suite with npm run test:deploy`);
  return value;
}

/** The environment global setup started, as a test file sees it. */
export function deployEnvironment() {
  const e = DEPLOY_ENV;
  return {
    kubeconfig: required("KUBECONFIG"),
    stateDir: required(e.state),
    /** The controller image the module's Deployments run. */
    image: required(e.image),
    nodeName: required(e.node),
    git: { url: required(e.gitUrl), root: required(e.gitRoot) },
    authGit: {
      url: required(e.authGitUrl),
      root: required(e.authGitRoot),
      user: required(e.authGitUser),
      password: required(e.authGitPassword),
    },
    functionImages: { wrapper: required(e.wrapperImage), labeller: required(e.labellerImage) },
  };
}

/**
 * A bare repository on the host's open (or basic-auth) git server, which Pods reach at the
 * bridge address, with `packages` published; its URL.
 */
export async function gitRepository(
  env: ReturnType<typeof deployEnvironment>,
  name: string,
  packages: readonly DemoPackage[] = [],
  server: "open" | "auth" = "open",
): Promise<string> {
  const git = server === "auth" ? env.authGit : env.git;
  const { url } = await createBareRepo(git.root, git.url, name);
  const credentials =
    server === "auth"
      ? { type: "basic" as const, username: env.authGit.user, password: env.authGit.password }
      : undefined;
  await publishTo(url, packages, { cacheParent: env.stateDir, credentials });
  return url;
}
