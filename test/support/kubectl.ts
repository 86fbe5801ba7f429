import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the control plane's kubectl (global setup put it first on PATH) against the test cluster. */
export function kubectl(args: string[], input?: string): KubectlResult {
  const result = spawnSync("kubectl", args, { input, encoding: "utf8", env: process.env });
  return { code: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

/** Like kubectl() but fails the test with kubectl's own message when the command fails. */
export function kubectlOk(args: string[], input?: string): string {
  const result = kubectl(args, input);
  if (result.code !== 0) throw new Error(`kubectl ${args.join(" ")} failed: ${result.stderr}`);
  return result.stdout;
}

/** A fresh namespace for one test file; delete it in afterAll. */
export function createNamespace(prefix: string): string {
  const name = `${prefix}-${randomBytes(3).toString("hex")}`;
  kubectlOk(["create", "namespace", name]);
  return name;
}
