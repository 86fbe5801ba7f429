import { createHash } from "node:crypto";
import { createRequire } from "node:module";

/**
 * kubernetes-fluent-client 3.11.6 prepares every API request from scratch: it reads and parses
 * the kubeconfig, builds TLS options, and creates a new undici Agent with a ten-minute
 * keep-alive. Every request then pays a YAML parse and a TLS handshake and leaves an idle
 * connection behind; a controller making thousands of requests holds thousands of sockets
 * (hundreds of MB of RSS and most of its CPU, measured by `npm run bench`). Newer KFC releases
 * need a newer Node than this project runs on, so `tuneKubeClient` makes those steps reuse
 * their results, on the very classes KFC uses (patched on their prototypes, because KFC holds
 * its own bindings to them):
 * - every undici Agent dispatches through the first agent made with the same options and TLS
 *   identity, so connections are pooled and kept alive across requests;
 * - KubeConfig.loadFromDefault and applyToFetchOptions reuse their result for a few seconds,
 *   so a rotated service-account token or an edited kubeconfig is still picked up;
 * - with a kubeconfig that carries no token (client certificates: a host process, `pepr dev`)
 *   KFC tries to read the in-cluster token file on every request: that one read, failed or
 *   not, is reused for a few seconds too.
 */
export const REUSE_MS = 10_000;

interface AgentLike {
  dispatch(options: unknown, handler: unknown): boolean;
  readonly closed?: boolean;
  readonly destroyed?: boolean;
}
export interface UndiciModule {
  Agent: { prototype: AgentLike };
}
export interface KubeConfigLike {
  clusters: unknown;
  users: unknown;
  contexts: unknown;
  currentContext: string;
  loadFromDefault(...args: unknown[]): void;
  loadFromOptions(options: unknown): void;
  applyToFetchOptions(options: object): Promise<unknown>;
}
export interface KubeConfigModule {
  KubeConfig: { prototype: KubeConfigLike };
}

const TUNED = Symbol.for("porch-pepr.kube-client-tuned");

/** undici keeps an agent's options under a private symbol described "options". */
function optionsOf(agent: object): Record<string, unknown> | undefined {
  const key = Object.getOwnPropertySymbols(agent).find(s => s.description === "options");
  return key ? ((agent as Record<symbol, Record<string, unknown>>)[key] ?? undefined) : undefined;
}

function agentIdentity(options: Record<string, unknown> | undefined): string {
  const { connect, ...rest } = options ?? {};
  const tls = (connect ?? {}) as Record<string, unknown>;
  const hash = createHash("sha256").update(JSON.stringify(rest));
  for (const key of ["ca", "cert", "key", "servername"])
    hash.update(`;${key}:${String(tls[key] ?? "")}`);
  return hash.digest("hex");
}

function shareAgents({ Agent }: UndiciModule): void {
  const dispatch = Agent.prototype.dispatch;
  const canonical = new Map<string, AgentLike>();
  const usable = (agent?: AgentLike) => agent !== undefined && !agent.closed && !agent.destroyed;
  Agent.prototype.dispatch = function (this: AgentLike, options, handler) {
    // A closed agent fails as undici makes it fail; a closed shared one is replaced.
    if (!usable(this)) return dispatch.call(this, options, handler);
    const key = agentIdentity(optionsOf(this));
    if (!usable(canonical.get(key))) canonical.set(key, this);
    return dispatch.call(canonical.get(key)!, options, handler);
  };
}

interface Loaded {
  at: number;
  source: KubeConfigLike;
  fetchOptions?: Promise<unknown>;
}

function reuseKubeConfig({ KubeConfig }: KubeConfigModule): void {
  const proto = KubeConfig.prototype;
  const load = proto.loadFromDefault;
  const apply = proto.applyToFetchOptions;
  const loadedFrom = new WeakMap<KubeConfigLike, Loaded>();
  let last: Loaded | undefined;
  proto.loadFromDefault = function (this: KubeConfigLike, ...args: unknown[]) {
    if (args.length > 0) return load.apply(this, args); // explicit options are never reused
    if (!last || Date.now() - last.at > REUSE_MS) {
      load.apply(this, args);
      last = { at: Date.now(), source: this };
    } else {
      const { clusters, users, contexts, currentContext } = last.source;
      this.loadFromOptions({ clusters, users, contexts, currentContext });
    }
    loadedFrom.set(this, last);
  };
  proto.applyToFetchOptions = function (this: KubeConfigLike, options: object) {
    const loaded = loadedFrom.get(this);
    // Only the bare call KFC makes is shared; KFC reads its result and never changes it.
    if (!loaded || Object.keys(options).length > 0) return apply.call(this, options);
    if (!loaded.fetchOptions) {
      const pending = apply.call(this, options);
      loaded.fetchOptions = pending;
      pending.catch(() => (loaded.fetchOptions = undefined)); // a failure is not reused
    }
    return loaded.fetchOptions;
  };
}

export const SERVICE_ACCOUNT_TOKEN = "/var/run/secrets/kubernetes.io/serviceaccount/token";

export interface FsPromises {
  readFile(path: unknown, ...rest: unknown[]): Promise<unknown>;
}

function reuseTokenReads(fsPromises: FsPromises): void {
  const readFile = fsPromises.readFile;
  let last: { at: number; read: Promise<unknown> } | undefined;
  fsPromises.readFile = function (this: unknown, path: unknown, ...rest: unknown[]) {
    // Only KFC's exact call is reused; every other read goes through untouched.
    if (path !== SERVICE_ACCOUNT_TOKEN || rest.length !== 1 || rest[0] !== "utf8")
      return readFile.call(this, path, ...rest);
    if (!last || Date.now() - last.at > REUSE_MS) {
      const read = readFile.call(this, path, ...rest);
      read.catch(() => undefined); // the caller handles it; a reuse must not warn
      last = { at: Date.now(), read };
    }
    return last.read;
  };
}

/** Applies the tunings once to the given modules. */
export function tuneKubeClient(
  undici: UndiciModule,
  kubeConfig: KubeConfigModule,
  fsPromises: FsPromises,
): void {
  const marked = undici.Agent.prototype as unknown as Record<symbol, boolean>;
  if (marked[TUNED]) return;
  marked[TUNED] = true;
  shareAgents(undici);
  reuseKubeConfig(kubeConfig);
  reuseTokenReads(fsPromises);
}

/** The undici and client-node module instances kubernetes-fluent-client itself loads. */
export function tuneFluentClient(): void {
  const fromFluentClient = createRequire(require.resolve("kubernetes-fluent-client"));
  tuneKubeClient(
    fromFluentClient("undici") as UndiciModule,
    fromFluentClient("@kubernetes/client-node") as KubeConfigModule,
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require("node:fs") as { promises: FsPromises }).promises,
  );
}
