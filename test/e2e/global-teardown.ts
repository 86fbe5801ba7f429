import type { Environment } from "../../hack/environment";

export default async function globalTeardown(): Promise<void> {
  const env = (globalThis as Record<string, unknown>).__PORCH_PEPR_ENV__ as Environment | undefined;
  await env?.stop();
}
