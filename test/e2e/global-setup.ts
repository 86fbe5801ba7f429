import { startEnvironment } from "../../hack/environment";

/** Starts the local control plane and the module once for all e2e test files. */
export default async function globalSetup(): Promise<void> {
  const env = await startEnvironment({ purpose: "test" });
  process.env.KUBECONFIG = env.kubeconfig;
  (globalThis as Record<string, unknown>).__PORCH_PEPR_ENV__ = env;
}
