// The `exec` runtime: runs a local executable that reads a ResourceList on stdin and writes
// one on stdout (kpt's ExecFn), bounded by a timeout and an output size limit, in a fresh
// temporary directory and with an environment that holds nothing of the operator's.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inputLimitProblem, type FunctionBound } from "./bounds";
import type { CapacityReason } from "./capacity-retry";

export interface ExecLimits {
  /** Kill the process after this long (default 60 s). */
  timeoutMs?: number;
  /** Kill the process when stdout grows past this many bytes (default 32 MiB). */
  maxOutputBytes?: number;
  /** A larger stdin (the ResourceList) is refused before the process starts (default 32 MiB). */
  maxInputBytes?: number;
  /** stderr kept for messages (default 64 KiB); more is dropped, not an error. */
  maxStderrBytes?: number;
}

export interface ExecOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Set when the process was stopped or could not start; the message says why. */
  failure?: string;
  /** Set when `failure` is a bound the function exceeded. */
  bound?: FunctionBound;
  /** Set when the run failed for want of shared capacity (lib/fn/capacity-retry.ts). */
  capacity?: CapacityReason;
}

export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
export const DEFAULT_EXEC_MAX_OUTPUT_BYTES = 32 * 1024 * 1024;
export const DEFAULT_EXEC_MAX_INPUT_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_STDERR_BYTES = 64 * 1024;

/**
 * The whole environment of a function: no KUBERNETES_*, PORCH_*, token or proxy variables of
 * the operator; HOME and TMPDIR are the run's own directory.
 */
export function functionEnvironment(workDir: string): Record<string, string> {
  return { PATH: "/usr/bin:/bin", HOME: workDir, TMPDIR: workDir, LANG: "C.UTF-8" };
}

/**
 * Runs `executable` (no arguments) with `stdin` in a fresh temporary working directory that is
 * removed afterwards; never rejects — problems are reported in `failure`.
 */
export async function runProcess(
  executable: string,
  stdin: string,
  limits: ExecLimits = {},
): Promise<ExecOutcome> {
  const tooLarge = inputLimitProblem(
    Buffer.byteLength(stdin),
    limits.maxInputBytes ?? DEFAULT_EXEC_MAX_INPUT_BYTES,
  );
  if (tooLarge)
    return { stdout: "", stderr: "", exitCode: 1, failure: tooLarge, bound: "FunctionInputLimit" };
  let workDir: string;
  try {
    workDir = await mkdtemp(join(tmpdir(), "porch-pepr-fn-"));
  } catch (error) {
    const failure = `could not create a working directory: ${(error as Error).message}`;
    return { stdout: "", stderr: "", exitCode: 1, failure };
  }
  try {
    return await spawnBounded(executable, stdin, workDir, limits);
  } finally {
    await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

function spawnBounded(
  executable: string,
  stdin: string,
  workDir: string,
  limits: ExecLimits,
): Promise<ExecOutcome> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
  const maxOut = limits.maxOutputBytes ?? DEFAULT_EXEC_MAX_OUTPUT_BYTES;
  const maxErr = limits.maxStderrBytes ?? DEFAULT_MAX_STDERR_BYTES;
  return new Promise(resolve => {
    const child = spawn(executable, [], {
      cwd: workDir,
      env: functionEnvironment(workDir),
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let failure: string | undefined;
    let bound: FunctionBound | undefined;
    const stop = (reason: string, exceeded?: FunctionBound): void => {
      if (failure === undefined) [failure, bound] = [reason, exceeded];
      child.kill("SIGKILL");
    };
    const timer = setTimeout(
      () => stop(`timed out after ${timeoutMs} ms`, "FunctionTimeout"),
      timeoutMs,
    );
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOut)
        stop(`wrote more than ${maxOut} bytes to stdout`, "FunctionOutputLimit");
      else out.push(chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      if (errBytes < maxErr) err.push(chunk.subarray(0, maxErr - errBytes));
      errBytes += chunk.length;
    });
    child.on("error", error => stop(`could not start: ${error.message}`));
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        exitCode: code ?? 1,
        failure: failure ?? (signal ? `was killed by ${signal}` : undefined),
        ...(bound && { bound }),
      });
    });
    // A function that exits without reading stdin makes the write fail with EPIPE; the exit
    // status is what matters then.
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdin);
  });
}
