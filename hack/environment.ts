import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ensureBinaries } from "./cluster/build";
import { ControlPlane, kubectl, startControlPlane } from "./cluster/control-plane";
import { binDir, repoRoot } from "./cluster/paths";
import { ensureModuleBuilt } from "./module/build";
import { RunningModule, startModule } from "./module/runner";
import { createDemoRepositories, manifestsYaml } from "./demo/repositories";
import { createSeedRepositories } from "./demo/seed";
import { startGitServerProcess, type GitServerProcess } from "./git-server-process";
import { Steps } from "./progress";

/** The embedded default: a real control plane with the module running against it. */
export interface Environment {
  kubeconfig: string;
  stateDir: string;
  controlPlane: ControlPlane;
  module: RunningModule;
  /** Open git server (the demo repositories live here in dev). */
  git: GitServerProcess;
  /** The same kind of server behind basic auth, for credential tests. */
  authGit: GitServerProcess & { user: string; password: string };
  stop(): Promise<void>;
}

export interface EnvironmentOptions {
  /** dev keeps its state in .local/ for inspection; test and bench use a temp dir. */
  purpose: "dev" | "test" | "bench" | "faults";
  /** catalog.yaml of the function catalog ConfigMap, in place before the module starts. */
  functionCatalog?: string;
}

function stateDirFor(purpose: EnvironmentOptions["purpose"]): string {
  if (purpose !== "dev") return mkdtempSync(join(tmpdir(), `porch-pepr-${purpose}-`));
  const dir = join(repoRoot, ".local", "env");
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** Installs the CRDs and waits until the API serves them. */
function installCrds(kubeconfig: string): void {
  kubectl(kubeconfig, ["apply", "--server-side", "-f", join(repoRoot, "crds")]);
  kubectl(kubeconfig, [
    "wait",
    "--for=condition=Established",
    "--timeout=60s",
    "-f",
    join(repoRoot, "crds"),
  ]);
}

export async function startEnvironment(options: EnvironmentOptions): Promise<Environment> {
  // The local git servers speak http on 127.0.0.1; a real cluster allows only https by default.
  process.env.PORCH_PEPR_GIT_ALLOW_HTTP ??= "loopback";
  const steps = new Steps(options.purpose === "dev" ? 9 : 8);
  const stateDir = stateDirFor(options.purpose);
  steps.step("Kubernetes binaries (cached after the first build)");
  await ensureBinaries();
  // Tests and users get the kubectl that matches the control plane.
  process.env.PATH = `${binDir()}:${process.env.PATH ?? ""}`;
  const controlPlane = await startControlPlane(
    stateDir,
    kubeconfig => {
      steps.step("installing the CRDs");
      installCrds(kubeconfig);
    },
    what => steps.step(what),
  );
  try {
    steps.step("building the module if its sources changed");
    ensureModuleBuilt();
    steps.step("starting the module (admission webhook and controllers)");
    const logDir = join(stateDir, "logs");
    const module = await startModule(controlPlane, logDir, {
      functionCatalog: options.functionCatalog,
    });
    steps.step("starting the local git servers");
    const git = await startGitServerProcess("git-server", join(stateDir, "git"), logDir);
    const password = randomBytes(12).toString("hex");
    const authRoot = join(stateDir, "git-auth");
    const authGit = {
      ...(await startGitServerProcess("git-server-auth", authRoot, logDir, {
        user: "porch",
        password,
      })),
      user: "porch",
      password,
    };
    if (options.purpose === "dev") {
      steps.step("creating the demo repositories and registering them");
      const cacheRoot = join(stateDir, "demo-cache");
      const [demo, seed] = await Promise.all([
        createDemoRepositories(git, { cacheRoot }),
        createSeedRepositories(git, { cacheRoot }),
      ]);
      kubectl(
        controlPlane.kubeconfig,
        ["apply", "-f", "-"],
        manifestsYaml([...demo.manifests, ...seed]),
      );
    }
    return {
      kubeconfig: controlPlane.kubeconfig,
      stateDir,
      controlPlane,
      module,
      git,
      authGit,
      async stop() {
        await module.stop();
        await Promise.all([git.close(), authGit.close()]);
        await controlPlane.stop();
        if (options.purpose !== "dev") rmSync(stateDir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await controlPlane.stop();
    throw e;
  }
}
