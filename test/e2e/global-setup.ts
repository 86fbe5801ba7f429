import { startEnvironment } from "../../hack/environment";
import { e2eCatalog } from "../support/e2e-catalog";

/**
 * Starts the local control plane, the module and two git servers once for all e2e test files.
 * Test files run in other processes: what they need travels in environment variables.
 */
export default async function globalSetup(): Promise<void> {
  // Git calls to the tests' hostile listeners end within the tests' waits (default: 5 min).
  process.env.PORCH_PEPR_GIT_TOTAL_TIMEOUT_MS ??= "30000";
  // A cap of package revisions per Repository that a test reaches with a few dozen tags (every
  // other test's repositories hold fewer).
  process.env.PORCH_PEPR_REPOSITORY_MAX_REVISIONS ??= "30";
  // A ref limit a test passes with a couple of hundred tags (the revision cap keeps every other
  // test's repositories far below it).
  process.env.PORCH_PEPR_GIT_MAX_REFS ??= "200";
  // The custom kinds the tests inject and select, and a cluster-scoped kind listed to show it
  // is refused all the same (the module inherits this environment).
  process.env.PORCH_PEPR_READABLE_KINDS ??= [
    "v1/ConfigMap",
    "config.porch.kpt.dev/v1alpha1/Repository",
    "e2e.porch.dev/v1/SiteConfig",
    "e2e.porch.dev/v1/Site",
    "v1/Namespace",
  ].join(",");
  // The module runs one exec function, the one its function catalog names (support/e2e-catalog.ts).
  const env = await startEnvironment({ purpose: "test", functionCatalog: e2eCatalog() });
  process.env.KUBECONFIG = env.kubeconfig;
  process.env.PORCH_PEPR_E2E_GIT_URL = env.git.url;
  process.env.PORCH_PEPR_E2E_GIT_ROOT = env.git.root;
  process.env.PORCH_PEPR_E2E_AUTH_GIT_URL = env.authGit.url;
  process.env.PORCH_PEPR_E2E_AUTH_GIT_ROOT = env.authGit.root;
  process.env.PORCH_PEPR_E2E_AUTH_GIT_USER = env.authGit.user;
  process.env.PORCH_PEPR_E2E_AUTH_GIT_PASSWORD = env.authGit.password;
  process.env.PORCH_PEPR_E2E_STATE = env.stateDir;
  (globalThis as Record<string, unknown>).__PORCH_PEPR_ENV__ = env;
}
