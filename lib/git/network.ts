// The operator's git network settings (URL policy and timeouts) and the connect-time address
// check both clients share: a host name is resolved once, every address it resolves to is
// checked against the policy, and the connection goes to a checked address (no second lookup a
// hostile DNS server could answer differently).
import { lookup as dnsLookup } from "node:dns/promises";
import type { LookupAddress } from "node:dns";
import { isIP } from "node:net";
import { GitStoreError } from "./errors";
import { DEFAULT_GIT_PROCESS_MEMORY, GIT_PROCESS_MEMORY_SETTING } from "./process-memory";
import {
  DEFAULT_CONTENT_LIMITS,
  gitContentLimitsFromEnv,
  positiveSetting,
  type GitContentLimits,
} from "./content-limits";
import {
  addressProblem,
  gitUrlPolicyFromEnv,
  gitUrlProblem,
  redact,
  type GitUrlPolicy,
} from "./url-policy";

export interface GitTimeouts {
  /** From the start of a connection until it is established (TLS included). */
  connectMs: number;
  /** Longest time without a byte from the server. */
  idleMs: number;
  /** Longest time one network operation (fetch, push) may take in all. */
  totalMs: number;
  /**
   * A transfer averaging fewer bytes a second than this over `lowSpeedTimeMs` is cut: a server
   * answering one byte at a time is never idle, and would otherwise hold a worker until
   * `totalMs` (default DEFAULT_LOW_SPEED).
   */
  lowSpeedLimit?: number;
  lowSpeedTimeMs?: number;
}

/** Below 1 KiB/s for 30 s, as curl's CURLOPT_LOW_SPEED_LIMIT/_TIME read it. */
export const DEFAULT_LOW_SPEED = { limit: 1024, timeMs: 30_000 };

/** The low-speed rule of `timeouts`, defaults filled in. */
export const lowSpeedOf = (timeouts: GitTimeouts): { limit: number; timeMs: number } => ({
  limit: timeouts.lowSpeedLimit ?? DEFAULT_LOW_SPEED.limit,
  timeMs: timeouts.lowSpeedTimeMs ?? DEFAULT_LOW_SPEED.timeMs,
});

export const DEFAULT_TIMEOUTS: GitTimeouts = {
  connectMs: 10_000,
  idleMs: 30_000,
  totalMs: 5 * 60_000,
};

export type Resolver = (host: string) => Promise<LookupAddress[]>;

export interface GitNetwork {
  policy: GitUrlPolicy;
  timeouts: GitTimeouts;
  /** What the clients read of a repository; default DEFAULT_CONTENT_LIMITS. */
  limits?: GitContentLimits;
  /** Data memory one git CLI process may take; default DEFAULT_GIT_PROCESS_MEMORY. */
  gitProcessMemoryBytes?: number;
  /** Host name resolution; tests give a fake one. Default: the system resolver (dns.lookup). */
  resolve?: Resolver;
}

/**
 * Settings from PORCH_PEPR_GIT_ALLOW_HTTP, ..._ALLOW_FILE, ..._{CONNECT,IDLE,TOTAL}_TIMEOUT_MS,
 * ..._LOW_SPEED_LIMIT, ..._LOW_SPEED_TIME_MS and the content limits
 * ..._MAX_{FILE,PACKAGE,FETCH,OBJECT,INFLATED}_BYTES, ..._MAX_PACKAGE_FILES, ..._MAX_TREE_ENTRIES,
 * and ..._PROCESS_MEMORY_BYTES.
 */
export function gitNetworkFromEnv(env: NodeJS.ProcessEnv): GitNetwork {
  return {
    policy: gitUrlPolicyFromEnv(env),
    timeouts: {
      connectMs: positiveSetting(env.PORCH_PEPR_GIT_CONNECT_TIMEOUT_MS, DEFAULT_TIMEOUTS.connectMs),
      idleMs: positiveSetting(env.PORCH_PEPR_GIT_IDLE_TIMEOUT_MS, DEFAULT_TIMEOUTS.idleMs),
      totalMs: positiveSetting(env.PORCH_PEPR_GIT_TOTAL_TIMEOUT_MS, DEFAULT_TIMEOUTS.totalMs),
      lowSpeedLimit: positiveSetting(env.PORCH_PEPR_GIT_LOW_SPEED_LIMIT, DEFAULT_LOW_SPEED.limit),
      lowSpeedTimeMs: positiveSetting(
        env.PORCH_PEPR_GIT_LOW_SPEED_TIME_MS,
        DEFAULT_LOW_SPEED.timeMs,
      ),
    },
    limits: gitContentLimitsFromEnv(env),
    gitProcessMemoryBytes: Math.floor(
      positiveSetting(env[GIT_PROCESS_MEMORY_SETTING], DEFAULT_GIT_PROCESS_MEMORY),
    ),
  };
}

const systemResolver: Resolver = host => dnsLookup(host, { all: true, verbatim: true });

/** Throws the policy's refusal of `url` as a store error. */
export function assertUrlAllowed(url: string, policy: GitUrlPolicy): void {
  const problem = gitUrlProblem(url, policy);
  if (problem)
    throw new GitStoreError("URLNotAllowed", `git URL ${redact(url)} refused: ${problem}`);
}

/**
 * The addresses the host of `url` resolves to, every one of them allowed by the policy; throws
 * URLNotAllowed when any is not (a name must not smuggle a metadata address among good ones).
 */
export async function checkedAddresses(
  url: URL,
  network: GitNetwork,
  shownUrl = url.href,
): Promise<LookupAddress[]> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const family = isIP(host);
  let addresses: LookupAddress[];
  if (family !== 0) addresses = [{ address: host, family }];
  else {
    try {
      addresses = await (network.resolve ?? systemResolver)(host);
    } catch (err) {
      const code = (err as { code?: string }).code ?? "lookup failed";
      throw new GitStoreError("Transport", `cannot resolve git host ${host}: ${code}`);
    }
  }
  if (addresses.length === 0)
    throw new GitStoreError("Transport", `cannot resolve git host ${host}: no address`);
  for (const { address } of addresses) {
    const problem = addressProblem(address, url.protocol, network.policy);
    if (problem)
      throw new GitStoreError("URLNotAllowed", `git URL ${redact(shownUrl)} refused: ${problem}`);
  }
  return addresses;
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for node:net/http that resolves through checkedAddresses: the address Node
 * connects to is the one that was checked, whatever the host name is. Refusals name `shownUrl`.
 */
export function guardedLookup(protocol: string, network: GitNetwork, shownUrl?: string) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    const url = new URL(`${protocol}//${isIP(hostname) === 6 ? `[${hostname}]` : hostname}/`);
    checkedAddresses(url, network, shownUrl).then(
      addresses =>
        options.all
          ? callback(null, addresses)
          : callback(null, addresses[0].address, addresses[0].family),
      (err: NodeJS.ErrnoException) => callback(err, ""),
    );
  };
}

/** The data memory one git CLI process may take. */
export const gitProcessMemoryOf = (network: GitNetwork): number =>
  network.gitProcessMemoryBytes ?? DEFAULT_GIT_PROCESS_MEMORY;

/** The content limits a client or the store applies. */
export const limitsOf = (network: GitNetwork): GitContentLimits =>
  network.limits ?? DEFAULT_CONTENT_LIMITS;
