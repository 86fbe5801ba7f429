import { request } from "node:http";
import type { WrapperCall } from "../../../lib/fn/pod";

export interface WrapperTarget {
  address: string;
  port: number;
  token: string;
}

export interface CallBounds {
  /** The whole call: connect, send, run, answer. */
  timeoutMs: number;
  maxAnswerBytes: number;
}

export type WrapperTransport = (
  target: WrapperTarget,
  body: string,
  bounds: CallBounds,
) => Promise<WrapperCall>;

/**
 * POST /run to a function Pod's wrapper, bounded in time and answer size; never rejects. A new
 * connection per run (no keep-alive): a reused connection that the wrapper had closed would
 * look like a lost Pod, and a connection costs far less than a function run.
 */
export const postRun: WrapperTransport = (target, body, bounds) =>
  new Promise(resolve => {
    let settled = false;
    const settle = (call: WrapperCall) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(call);
    };
    const payload = Buffer.from(body, "utf8");
    const req = request(
      {
        host: target.address,
        port: target.port,
        method: "POST",
        path: "/run",
        agent: false,
        headers: {
          Authorization: `Bearer ${target.token}`,
          "Content-Type": "application/yaml",
          "Content-Length": payload.length,
        },
      },
      res => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > bounds.maxAnswerBytes) {
            settle({ kind: "too-large", limit: bounds.maxAnswerBytes });
            req.destroy();
          } else chunks.push(chunk);
        });
        res.on("end", () =>
          settle({
            kind: "answered",
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
        res.on("error", error => settle({ kind: "unreachable", message: error.message }));
        res.on("close", () =>
          settle({ kind: "unreachable", message: "the connection closed before the answer ended" }),
        );
      },
    );
    const timer = setTimeout(() => {
      settle({ kind: "timeout", afterMs: bounds.timeoutMs });
      req.destroy();
    }, bounds.timeoutMs);
    req.on("error", error => settle({ kind: "unreachable", message: error.message }));
    req.end(payload);
  });
