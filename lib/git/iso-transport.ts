// isomorphic-git's HTTP client, written on node:http/https instead of its simple-get one, which
// follows redirects (credentials included, to any host) and has no timeouts. Here every request
// is checked against the URL policy, connects only to addresses the policy allows (checked in
// the socket's lookup), never follows a redirect, and fails with a Timeout store error when the
// server is slow to connect, goes quiet, trickles (below the low-speed limit for its window), or
// the whole operation outlives its deadline.
import http from "node:http";
import https from "node:https";
import type { Socket } from "node:net";
import type { GitHttpRequest, GitHttpResponse, HttpClient } from "isomorphic-git";
import { GitStoreError } from "./errors";
import { assertUrlAllowed, guardedLookup, limitsOf, lowSpeedOf, type GitNetwork } from "./network";
import { overLimit } from "./content-limits";
import { redact } from "./url-policy";
import type { FetchHold } from "./fetch-memory";

export function timeoutError(what: string, url: string): GitStoreError {
  return new GitStoreError("Timeout", `git server ${redact(url)} timed out: ${what}`);
}

/**
 * An HttpClient for one network operation on the repository at `repoUrl`: `deadline` aborts it
 * (with a Timeout store error as its reason) when the operation's total time is up.
 */
export function guardedHttpClient(
  network: GitNetwork,
  deadline: AbortSignal,
  repoUrl: string,
  hold?: FetchHold,
): HttpClient {
  return { request: req => guardedRequest(req, network, deadline, repoUrl, hold) };
}

async function collect(body: GitHttpRequest["body"]): Promise<Buffer | undefined> {
  if (body === undefined) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

async function guardedRequest(
  req: GitHttpRequest,
  network: GitNetwork,
  deadline: AbortSignal,
  repoUrl: string,
  hold: FetchHold | undefined,
): Promise<GitHttpResponse> {
  assertUrlAllowed(req.url, network.policy);
  const url = new URL(req.url);
  const body = await collect(req.body);
  deadline.throwIfAborted();
  const { connectMs, idleMs } = network.timeouts;
  const transport = url.protocol === "https:" ? https : http;
  return new Promise((resolve, reject) => {
    let failure: Error | undefined;
    let connectTimer: NodeJS.Timeout | undefined;
    let lowSpeedTimer: NodeJS.Timeout | undefined;
    let response: http.IncomingMessage | undefined;
    const request = transport.request(url, {
      method: req.method ?? "GET",
      headers: {
        ...req.headers,
        ...(body !== undefined && { "content-length": String(body.length) }),
      },
      // One connection per request: its timeouts and checks never carry over to another.
      agent: false,
      lookup: guardedLookup(url.protocol, network, repoUrl) as never,
    });
    const cleanup = () => {
      clearTimeout(connectTimer);
      clearInterval(lowSpeedTimer);
      deadline.removeEventListener("abort", onDeadline);
    };
    const fail = (err: Error) => {
      failure ??= err;
      cleanup();
      request.destroy(failure);
      response?.destroy(failure);
      reject(failure);
    };
    const onDeadline = () => fail(deadline.reason as Error);
    deadline.addEventListener("abort", onDeadline, { once: true });
    request.on("socket", (socket: Socket) => {
      socket.setTimeout(idleMs, () => fail(timeoutError(`no data for ${idleMs} ms`, repoUrl)));
      lowSpeedTimer = watchLowSpeed(socket, lowSpeedOf(network.timeouts), what =>
        fail(timeoutError(what, repoUrl)),
      );
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () => fail(timeoutError(`not connected after ${connectMs} ms`, repoUrl)),
        connectMs,
      );
      socket.once(url.protocol === "https:" ? "secureConnect" : "connect", () =>
        clearTimeout(connectTimer),
      );
    });
    request.on("error", err => fail(failure ?? err));
    request.on("response", res => {
      response = res;
      // Errors reach the reader through guardedBody; an unread body must not crash the process.
      res.on("error", () => undefined);
      resolve({
        url: req.url,
        method: req.method,
        statusCode: res.statusCode ?? 0,
        statusMessage: res.statusMessage ?? "",
        headers: res.headers as Record<string, string>,
        body: guardedBody(res, () => failure, cleanup, {
          network,
          repoUrl,
          hold,
        }),
      });
    });
    request.end(body);
  });
}

/**
 * Checks at the end of every window that the socket moved (read or wrote) at least the limit's
 * worth of bytes in it: a server sending a byte now and then is never idle, but is cut here
 * within two windows of slowing down.
 */
function watchLowSpeed(
  socket: Socket,
  { limit, timeMs }: { limit: number; timeMs: number },
  onSlow: (what: string) => void,
): NodeJS.Timeout {
  const moved = () => socket.bytesRead + socket.bytesWritten;
  let last = moved();
  const timer = setInterval(() => {
    const now = moved();
    if (now - last < (limit * timeMs) / 1000)
      onSlow(`less than ${limit} bytes/s for ${timeMs} ms (PORCH_PEPR_GIT_LOW_SPEED_LIMIT)`);
    last = now;
  }, timeMs);
  timer.unref();
  return timer;
}

/**
 * The response body, at most the per-fetch limit, each chunk charged to the operation's hold of
 * the fetch memory before it is passed on (reading pauses while it waits); a failure of the
 * request (timeout, deadline) is what its reader sees.
 */
async function* guardedBody(
  res: http.IncomingMessage,
  failure: () => Error | undefined,
  cleanup: () => void,
  limit: { network: GitNetwork; repoUrl: string; hold?: FetchHold },
): AsyncGenerator<Uint8Array> {
  const limits = limitsOf(limit.network);
  let size = 0;
  try {
    for await (const chunk of res) {
      size += (chunk as Buffer).length;
      if (size > limits.maxFetchBytes)
        throw new GitStoreError(
          "ContentTooLarge",
          `git server ${redact(limit.repoUrl)} answered with more than the fetch may take: ${overLimit("maxFetchBytes", limits)}`,
        );
      await limit.hold?.charge((chunk as Buffer).length);
      yield chunk as Buffer;
    }
    const err = failure();
    if (err) throw err;
  } catch (err) {
    throw failure() ?? err;
  } finally {
    cleanup();
    res.destroy();
  }
}
