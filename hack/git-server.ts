// A small git smart-HTTP server for tests and the local run: Node's http server in front of
// `git http-backend` (CGI), serving bare repositories from one folder, optionally behind basic
// or bearer auth so a Repository secretRef is exercised for real.
//
// CLI: node hack/run-ts.mjs hack/git-server.ts --root DIR [--port N] [--user U --password P] [--token T]
// prints one JSON line {"url": "...", "root": "..."} when ready.
import { execFile, spawn } from "node:child_process";
import { timingSafeEqual } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The log line (stderr) the server process writes as a push (git-receive-pack POST) starts. */
export const PUSH_STARTED = "receive-pack started";

export interface GitServerOptions {
  /** Folder holding the bare repositories (`<name>.git`). Created if missing. */
  root: string;
  /** 0 (default) picks a free port. */
  port?: number;
  host?: string;
  /** Basic auth: every request must carry these credentials. */
  user?: string;
  password?: string;
  /** Bearer auth: every request must carry `Authorization: Bearer <token>`. */
  token?: string;
  /** Receives http-backend's stderr lines (quiet by default). */
  onLog?: (line: string) => void;
  /** Called as each authenticated request starts (the server process logs pushes with it). */
  onRequestStart?: (info: { method: string; path: string }) => void;
  /** Called once per finished request (bench/git-clients.ts counts pushed bytes with it). */
  onRequest?: (info: {
    method: string;
    path: string;
    status: number;
    requestBytes: number;
    /** The request body's first 64 KiB (a push's commands come first). */
    head: Buffer;
  }) => void;
}

export interface GitServer {
  url: string;
  port: number;
  root: string;
  close(): Promise<void>;
  /** Creates `<root>/<name>.git` and returns its clone URL. */
  createBareRepo(
    name: string,
    opts?: { initialBranch?: string },
  ): Promise<{ url: string; path: string }>;
}

/**
 * Creates `<root>/<name>.git` for a server serving `root` at `url`; usable from another process
 * than the server's (e2e test files create repositories on the server global setup started).
 */
export async function createBareRepo(
  root: string,
  url: string,
  name: string,
  opts?: { initialBranch?: string },
): Promise<{ url: string; path: string }> {
  const path = join(root, `${name}.git`);
  await run("git", [
    "init",
    "--quiet",
    "--bare",
    `--initial-branch=${opts?.initialBranch ?? "main"}`,
    path,
  ]);
  return { url: `${url}/${name}.git`, path };
}

export async function startGitServer(opts: GitServerOptions): Promise<GitServer> {
  const root = resolve(opts.root);
  await mkdir(root, { recursive: true });
  const backend = join((await run("git", ["--exec-path"])).stdout.trim(), "git-http-backend");
  const server = createServer((req, res) => {
    const user = authenticate(req, opts);
    if (user === undefined) {
      res.writeHead(401, { "WWW-Authenticate": 'Basic realm="git"', "Content-Type": "text/plain" });
      res.end("authentication required\n");
      return;
    }
    opts.onRequestStart?.({ method: req.method ?? "", path: req.url ?? "" });
    if (opts.onRequest !== undefined) observe(req, res, opts.onRequest);
    serveCgi(backend, root, user, req, res, opts.onLog);
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => ok());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${opts.host ?? "127.0.0.1"}:${port}`;
  return {
    url,
    port,
    root,
    close: () =>
      new Promise<void>(ok => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
    createBareRepo: (name, repoOpts) => createBareRepo(root, url, name, repoOpts),
  };
}

const HEAD_BYTES = 65536;

function observe(
  req: IncomingMessage,
  res: ServerResponse,
  onRequest: NonNullable<GitServerOptions["onRequest"]>,
): void {
  let requestBytes = 0;
  const head: Buffer[] = [];
  req.on("data", (chunk: Buffer) => {
    if (requestBytes < HEAD_BYTES) head.push(chunk.subarray(0, HEAD_BYTES - requestBytes));
    requestBytes += chunk.length;
  });
  res.on("finish", () =>
    onRequest({
      method: req.method ?? "",
      path: req.url ?? "",
      status: res.statusCode,
      requestBytes,
      head: Buffer.concat(head),
    }),
  );
}

/** Returns the REMOTE_USER for an accepted request, undefined when it must be refused. */
function authenticate(req: IncomingMessage, opts: GitServerOptions): string | undefined {
  const needBasic = opts.user !== undefined;
  const needToken = opts.token !== undefined;
  if (!needBasic && !needToken) return "anonymous"; // REMOTE_USER enables receive-pack
  const header = req.headers.authorization ?? "";
  if (needToken && header.startsWith("Bearer ") && sameText(header.slice(7), opts.token ?? ""))
    return "token";
  if (needBasic && header.startsWith("Basic ")) {
    const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
    const colon = decoded.indexOf(":");
    const user = decoded.slice(0, colon);
    if (
      colon > 0 &&
      sameText(user, opts.user ?? "") &&
      sameText(decoded.slice(colon + 1), opts.password ?? "")
    ) {
      return user;
    }
  }
  return undefined;
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function serveCgi(
  backend: string,
  root: string,
  user: string,
  req: IncomingMessage,
  res: ServerResponse,
  onLog?: (line: string) => void,
): void {
  const url = new URL(req.url ?? "/", "http://localhost");
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    GIT_PROJECT_ROOT: root,
    GIT_HTTP_EXPORT_ALL: "1",
    REQUEST_METHOD: req.method ?? "GET",
    PATH_INFO: decodeURIComponent(url.pathname),
    QUERY_STRING: url.search.replace(/^\?/, ""),
    CONTENT_TYPE: req.headers["content-type"] ?? "",
    REMOTE_USER: user,
    REMOTE_ADDR: req.socket.remoteAddress ?? "",
    GIT_CONFIG_NOSYSTEM: "1",
  };
  if (req.headers["content-length"] !== undefined)
    env.CONTENT_LENGTH = req.headers["content-length"];
  if (req.headers["git-protocol"] !== undefined)
    env.GIT_PROTOCOL = String(req.headers["git-protocol"]);
  if (req.headers["content-encoding"] !== undefined)
    env.HTTP_CONTENT_ENCODING = req.headers["content-encoding"];

  const child = spawn(backend, [], { env, stdio: ["pipe", "pipe", "pipe"] });
  req.pipe(child.stdin);
  child.stdin.on("error", () => undefined); // backend may exit before reading the whole body
  child.stderr.on("data", (d: Buffer) => onLog?.(d.toString("utf8").trimEnd()));
  res.on("close", () => {
    if (child.exitCode === null) child.kill();
  });
  relayCgiOutput(child.stdout, res);
  child.on("error", err => {
    if (!res.headersSent) res.writeHead(500, { "Content-Type": "text/plain" });
    res.end(`git http-backend failed: ${err.message}\n`);
  });
}

/** Parses the CGI header block (Status + headers), then streams the body through. */
function relayCgiOutput(out: NodeJS.ReadableStream, res: ServerResponse): void {
  let head = Buffer.alloc(0);
  let headerDone = false;
  const onData = (chunk: Buffer) => {
    if (headerDone) return;
    head = Buffer.concat([head, chunk]);
    const end = findHeaderEnd(head);
    if (end === undefined) return;
    headerDone = true;
    const { status, headers } = parseCgiHeaders(head.subarray(0, end.at).toString("latin1"));
    res.writeHead(status, headers);
    const rest = head.subarray(end.at + end.length);
    out.removeListener("data", onData);
    if (rest.length > 0) res.write(rest);
    out.pipe(res);
  };
  out.on("data", onData);
  out.on("end", () => {
    if (!headerDone) {
      res.writeHead(502, { "Content-Type": "text/plain" });
      res.end("git http-backend produced no CGI headers\n");
    }
  });
}

function findHeaderEnd(buf: Buffer): { at: number; length: number } | undefined {
  const crlf = buf.indexOf("\r\n\r\n");
  const lf = buf.indexOf("\n\n");
  if (crlf >= 0 && (lf < 0 || crlf < lf)) return { at: crlf, length: 4 };
  if (lf >= 0) return { at: lf, length: 2 };
  return undefined;
}

function parseCgiHeaders(text: string): { status: number; headers: Record<string, string> } {
  let status = 200;
  const headers: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    if (name.toLowerCase() === "status") status = Number.parseInt(value, 10) || 500;
    else headers[name] = value;
  }
  return { status, headers };
}

function parseArgs(argv: string[]): GitServerOptions {
  const opts: GitServerOptions = { root: "" };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`missing value for ${flag}`);
    if (flag === "--root") opts.root = value;
    else if (flag === "--port") opts.port = Number.parseInt(value, 10);
    else if (flag === "--host") opts.host = value;
    else if (flag === "--user") opts.user = value;
    else if (flag === "--password") opts.password = value;
    else if (flag === "--token") opts.token = value;
    else throw new Error(`unknown flag ${flag}`);
  }
  if (!opts.root)
    throw new Error(
      "usage: git-server.ts --root DIR [--port N] [--user U --password P] [--token T]",
    );
  if ((opts.user === undefined) !== (opts.password === undefined))
    throw new Error("--user and --password go together");
  return opts;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const server = await startGitServer({
    ...opts,
    onLog: line => process.stderr.write(`${line}\n`),
    // The fault campaign (faults/push-killer.ts) kills the server the moment a push starts.
    onRequestStart: ({ method, path }) => {
      if (method === "POST" && path.endsWith("/git-receive-pack"))
        process.stderr.write(`${PUSH_STARTED} ${path}\n`);
    },
  });
  process.stdout.write(`${JSON.stringify({ url: server.url, root: server.root })}\n`);
  const stop = () => void server.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}

// Runs as a CLI only when it is the entry point (run-ts bundles it as `.local/run-ts/git-server-<pid>.cjs`);
// importing the module (tests, bench) never starts a server.
if (/[\\/]git-server(-\d+)?\.(cjs|js|ts)$/.test(process.argv[1] ?? "")) {
  main().catch((err: unknown) => {
    process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  });
}
