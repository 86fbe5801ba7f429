// The `exec` runtime: runs a local executable that reads a ResourceList on stdin and writes
// one on stdout (kpt's ExecFn), bounded by a timeout and an output size limit.
import { spawn } from "node:child_process";

export interface ExecLimits {
  /** Kill the process after this long (default 60 s). */
  timeoutMs?: number;
  /** Kill the process when stdout grows past this many bytes (default 32 MiB). */
  maxOutputBytes?: number;
  /** stderr kept for messages (default 64 KiB); more is dropped, not an error. */
  maxStderrBytes?: number;
  /** Working directory; relative `exec` paths resolve against it. */
  cwd?: string;
  /** Environment of the process; default only PATH, so no credentials leak into functions. */
  env?: Record<string, string>;
}

export interface ExecOutcome {
  stdout: string;
  stderr: string;
  exitCode: number;
  /** Set when the process was stopped or could not start; the message says why. */
  failure?: string;
}

export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
export const DEFAULT_EXEC_MAX_OUTPUT_BYTES = 32 * 1024 * 1024;
const DEFAULT_MAX_STDERR_BYTES = 64 * 1024;

/** Splits an `exec:` value into program and arguments (shell-like quoting, no expansion). */
export function splitCommand(command: string): string[] {
  const words: string[] = [];
  let current = "";
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i];
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === "\\" && quote === '"' && i + 1 < command.length) current += command[++i];
      else current += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === "\\" && i + 1 < command.length) {
      current += command[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = "";
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`exec command ${JSON.stringify(command)} has an unterminated quote`);
  if (inWord) words.push(current);
  return words;
}

/** Runs `command` with `stdin`; never rejects — problems are reported in `failure`. */
export function runProcess(
  command: string,
  stdin: string,
  limits: ExecLimits = {},
): Promise<ExecOutcome> {
  const timeoutMs = limits.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
  const maxOut = limits.maxOutputBytes ?? DEFAULT_EXEC_MAX_OUTPUT_BYTES;
  const maxErr = limits.maxStderrBytes ?? DEFAULT_MAX_STDERR_BYTES;
  let argv: string[];
  try {
    argv = splitCommand(command);
  } catch (error) {
    return Promise.resolve({
      stdout: "",
      stderr: "",
      exitCode: 1,
      failure: (error as Error).message,
    });
  }
  if (argv.length === 0) {
    return Promise.resolve({
      stdout: "",
      stderr: "",
      exitCode: 1,
      failure: "exec command is empty",
    });
  }
  return new Promise(resolve => {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: limits.cwd,
      env: limits.env ?? { PATH: process.env.PATH ?? "/usr/bin:/bin" },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let failure: string | undefined;
    const stop = (reason: string): void => {
      if (failure === undefined) failure = reason;
      child.kill("SIGKILL");
    };
    const timer = setTimeout(() => stop(`timed out after ${timeoutMs} ms`), timeoutMs);
    child.stdout.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxOut) stop(`wrote more than ${maxOut} bytes to stdout`);
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
      });
    });
    // A function that exits without reading stdin makes the write fail with EPIPE; the exit
    // status is what matters then.
    child.stdin.on("error", () => undefined);
    child.stdin.end(stdin);
  });
}
