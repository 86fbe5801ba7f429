// Local listeners that misbehave like hostile git remotes: one that accepts and trickles bytes
// without ever answering, one that answers anything with a non-git body, one that redirects.
// Each listens on a loopback address, every loop is bounded by a count, and close() ends it.
import http from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";

export interface SeenRequest {
  method: string;
  path: string;
  authorization?: string;
}

export interface HostileServer {
  /** Base URL, e.g. http://127.0.0.1:1234; append a repository path. */
  url: string;
  /** Connections accepted (trickle) or requests received (http servers). */
  seen: SeenRequest[];
  /** The most connections open at once so far (trickle). */
  peakOpen?: () => number;
  close(): Promise<void>;
}

function listen(server: net.Server, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });
}

/**
 * Accepts, then sends one byte of an HTTP answer whose header never ends every `intervalMs`, at
 * most `maxBytes` per connection, then stays silent; never completes an answer. With
 * `inBody`, the header is sent whole at once and the body trickles (curl counts only body
 * bytes in its transfer speed).
 */
export async function startTrickleServer(
  opts: { intervalMs: number; maxBytes: number; inBody?: boolean },
  host = "127.0.0.1",
): Promise<HostileServer> {
  const sockets = new Set<net.Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const seen: SeenRequest[] = [];
  let peak = 0;
  const head = "HTTP/1.1 200 OK\r\nX-Trickle: ";
  const server = net.createServer(socket => {
    sockets.add(socket);
    peak = Math.max(peak, sockets.size);
    seen.push({ method: "CONNECT", path: "" });
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
    let sent = 0;
    if (opts.inBody)
      socket.write(
        "HTTP/1.1 200 OK\r\nContent-Type: application/x-git-upload-pack-advertisement\r\n" +
          "Connection: close\r\n\r\n",
      );
    const timer = setInterval(() => {
      if (sent >= opts.maxBytes || socket.destroyed) {
        clearInterval(timer);
        timers.delete(timer);
        return;
      }
      socket.write(opts.inBody ? "a" : (head[sent] ?? "a"));
      sent++;
    }, opts.intervalMs);
    timers.add(timer);
  });
  const port = await listen(server, host);
  return {
    url: `http://${host}:${port}`,
    seen,
    peakOpen: () => peak,
    close: () =>
      new Promise(resolve => {
        for (const t of timers) clearInterval(t);
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function startHttp(
  host: string,
  answer: (req: http.IncomingMessage, res: http.ServerResponse) => void,
): Promise<HostileServer> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    seen.push({
      method: req.method ?? "",
      path: req.url ?? "",
      authorization: req.headers.authorization,
    });
    req.resume();
    answer(req, res);
  });
  server.keepAliveTimeout = 100;
  const port = await listen(server, host);
  return {
    url: `http://${host}:${port}`,
    seen,
    close: () =>
      new Promise(resolve => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Answers every request with `status` and a text/plain body (git quotes such bodies). */
export function startBodyServer(
  status: number,
  body: string,
  host = "127.0.0.1",
): Promise<HostileServer> {
  return startHttp(host, (_req, res) => {
    res.writeHead(status, { "content-type": "text/plain" });
    res.end(body);
  });
}

/** Redirects every request to the same path under `target`. */
export function startRedirectServer(target: string, host = "127.0.0.1"): Promise<HostileServer> {
  return startHttp(host, (req, res) => {
    res.writeHead(302, { location: `${target}${req.url ?? "/"}` });
    res.end();
  });
}

/**
 * Forwards every request to `target` (a real git server) and passes on only the first
 * `cutAfter` bytes of a fetch's pack answer (POST git-upload-pack), then cuts the connection:
 * a fetch that ends in an early EOF, its pack half written.
 */
export async function startCuttingProxy(
  target: string,
  cutAfter: number,
  host = "127.0.0.1",
): Promise<HostileServer> {
  const seen: SeenRequest[] = [];
  const to = new URL(target);
  const server = http.createServer((req, res) => {
    seen.push({ method: req.method ?? "", path: req.url ?? "" });
    const upstream = http.request(
      {
        host: to.hostname,
        port: to.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: to.host },
      },
      answer => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        const cut = req.method === "POST" && (req.url ?? "").endsWith("/git-upload-pack");
        let sent = 0;
        answer.on("data", (chunk: Buffer) => {
          if (!cut) return res.write(chunk);
          if (sent >= cutAfter) return;
          res.write(chunk.subarray(0, cutAfter - sent));
          sent += chunk.length;
          if (sent >= cutAfter) {
            answer.destroy();
            res.socket?.destroy();
          }
        });
        answer.on("end", () => res.end());
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  const port = await listen(server, host);
  return {
    url: `http://${host}:${port}`,
    seen,
    close: () =>
      new Promise(resolve => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A pkt-line: four hex digits of length, then the data. */
const pktLine = (data: Buffer | string): Buffer => {
  const body = Buffer.isBuffer(data) ? data : Buffer.from(data);
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, "0")), body]);
};

/**
 * Speaks smart-HTTP upload-pack (protocol v0) with side-band: advertises one branch, and
 * answers the fetch with `floodBytes` of band-2 ("remote:") messages and no pack, then band 3.
 * `written()` says how many bytes of messages it could send before the client went away.
 */
export async function startSidebandFloodServer(
  floodBytes: number,
  host = "127.0.0.1",
): Promise<HostileServer & { written: () => number }> {
  const oid = "1".repeat(40);
  const message = pktLine(
    Buffer.concat([Buffer.from([2]), Buffer.alloc(65_000, 0x41), Buffer.from("\n")]),
  );
  let written = 0;
  const server = await startHttp(host, (req, res) => {
    if ((req.url ?? "").includes("/info/refs")) {
      res.setHeader("content-type", "application/x-git-upload-pack-advertisement");
      res.end(
        Buffer.concat([
          pktLine("# service=git-upload-pack\n"),
          Buffer.from("0000"),
          pktLine(`${oid} refs/heads/main\0side-band-64k ofs-delta\n`),
          Buffer.from("0000"),
        ]),
      );
      return;
    }
    res.setHeader("content-type", "application/x-git-upload-pack-result");
    res.write(pktLine("NAK\n"));
    let closed = false;
    res.on("close", () => (closed = true));
    const send = () => {
      while (!closed && written < floodBytes) {
        written += message.length;
        if (!res.write(message)) return void res.once("drain", send);
      }
      if (!closed) res.end(pktLine(Buffer.from([3, ...Buffer.from("bye")])));
    };
    send();
  });
  return { ...server, written: () => written };
}
