// The benchmark's own API access: plain HTTPS with the admin client certificate, so every
// request it makes is counted (and subtracted from the API server's totals), and watches keep
// the objects it waits on in memory instead of polling lists.
import { readFileSync } from "node:fs";
import { Agent, request } from "node:https";
import type { CertFiles } from "../hack/cluster/certs";

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    ownerReferences?: { kind: string; name: string; uid: string }[];
    managedFields?: { manager?: string }[];
  };
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  observedGeneration?: number;
}

export const conditionOf = (obj: KubeObject | undefined, type: string): Condition | undefined =>
  (obj?.status?.conditions as Condition[] | undefined)?.find(c => c.type === type);

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** Resource paths of the kinds the benchmark touches. */
export const paths = {
  pv: (ns: string) => `/apis/config.porch.kpt.dev/v1alpha1/namespaces/${ns}/packagevariants`,
  pvs: (ns: string) => `/apis/config.porch.kpt.dev/v1alpha2/namespaces/${ns}/packagevariantsets`,
  repo: (ns: string) => `/apis/config.porch.kpt.dev/v1alpha1/namespaces/${ns}/repositories`,
  pr: (ns: string) => `/apis/porch.kpt.dev/v1alpha2/namespaces/${ns}/packagerevisions`,
  prr: (ns: string) => `/apis/porch.kpt.dev/v1alpha2/namespaces/${ns}/packagerevisionresources`,
  namespaces: "/api/v1/namespaces",
};

export class Api {
  readonly agent: Agent;
  /**
   * Requests this process sent to the porch API groups, keyed like metrics.apiRequests
   * ("VERB resource"), so they can be subtracted from the API server's totals.
   */
  readonly sent: Record<string, number> = {};

  constructor(
    readonly server: string,
    certs: Pick<CertFiles, "caCert" | "adminCert" | "adminKey">,
  ) {
    this.agent = new Agent({
      keepAlive: true,
      maxSockets: 64,
      ca: readFileSync(certs.caCert),
      cert: readFileSync(certs.adminCert),
      key: readFileSync(certs.adminKey),
    });
  }

  #count(method: string, path: string): void {
    const m =
      /^\/apis\/[^/]*porch\.kpt\.dev\/[^/]+\/namespaces\/[^/]+\/([^/?]+)(\/[^/?]+)?(\/[^/?]+)?/.exec(
        path,
      );
    if (!m || path.includes("dryRun=")) return;
    const verb = method === "GET" ? (m[2] ? "GET" : "LIST") : method;
    const key = `${verb} ${m[1]}${m[3] ?? ""}`;
    this.sent[key] = (this.sent[key] ?? 0) + 1;
  }

  /** One request; resolves with the status and body whatever the status. */
  send(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<{ status: number; body: string }> {
    this.#count(method, path);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        `${this.server}${path}`,
        {
          method,
          agent: this.agent,
          headers: payload
            ? { "Content-Type": contentType, "Content-Length": Buffer.byteLength(payload) }
            : {},
        },
        res => {
          const chunks: Buffer[] = [];
          res.on("data", c => chunks.push(c));
          res.on("end", () =>
            resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }),
          );
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
  }

  /** A request whose JSON answer is returned; a status of 400 or more throws with its message. */
  async json<T>(method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
    const res = await this.send(method, path, body, contentType);
    if (res.status >= 400) {
      let message = res.body;
      try {
        message = (JSON.parse(res.body) as { message?: string }).message ?? res.body;
      } catch {
        // not JSON: keep the raw text
      }
      throw new ApiError(res.status, `${method} ${path}: ${res.status} ${message}`);
    }
    return JSON.parse(res.body || "{}") as T;
  }

  create<T extends KubeObject>(path: string, obj: T): Promise<T> {
    return this.json<T>("POST", path, obj);
  }

  mergePatch(path: string, name: string, patch: unknown): Promise<KubeObject> {
    return this.json("PATCH", `${path}/${name}`, patch, "application/merge-patch+json");
  }

  /** Opens a watch; `onEvent` gets each event, `onEnd` is called when the server closes it. */
  watch(
    path: string,
    resourceVersion: string,
    onEvent: (type: string, obj: KubeObject) => void,
    onEnd: (error?: Error) => void,
  ): () => void {
    const query = `?watch=1&resourceVersion=${resourceVersion}&timeoutSeconds=1800`;
    const req = request(`${this.server}${path}${query}`, { agent: this.agent }, res => {
      if (res.statusCode !== 200) {
        res.resume();
        return onEnd(new Error(`watch ${path}: HTTP ${res.statusCode}`));
      }
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          if (!line.trim()) continue;
          const event = JSON.parse(line) as { type: string; object: KubeObject };
          onEvent(event.type, event.object);
        }
      });
      res.on("end", () => onEnd());
      res.on("error", error => onEnd(error));
    });
    req.on("error", error => onEnd(error));
    req.end();
    return () => req.destroy();
  }
}

/** Deletes a namespace and resolves once it is gone. */
export async function deleteNamespace(api: Api, ns: string, timeoutMs = 300_000): Promise<void> {
  await api.send("DELETE", `${paths.namespaces}/${ns}`);
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if ((await api.send("GET", `${paths.namespaces}/${ns}`)).status === 404) return;
    await new Promise(r => setTimeout(r, 500));
  }
  throw new Error(`namespace ${ns} still exists after ${timeoutMs / 1000}s`);
}
