import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createContext, type Logger, type OperatorContext } from "../../capabilities/context";
import { variantIndexers } from "../../capabilities/package-variant-set/variants";
import { RevisionCache } from "../../capabilities/shared/revision-cache";
import { Slots } from "../../lib/controller/concurrency";
import { WatchCache } from "../../lib/controller/watch-cache";
import {
  BUILTIN_FUNCTIONS,
  CapacityRetries,
  CatalogHolder,
  createFunctionRuntime,
  DEFAULT_CAPACITY_BACKOFF,
  type FunctionRuntime,
} from "../../lib/fn";
import type { ContentStore } from "../../lib/git";
import { createBareRepo } from "../../hack/git-server";
import { MemoryCluster, type MemoryClusterOptions } from "./memory-cluster";

/**
 * An OperatorContext for unit tests of reconcilers, built as capabilities/operator.ts builds the
 * real one (real caches, content stores, discovery, access reviews) around a MemoryCluster, with
 * a clock that moves only when the test moves it, render slots the test holds, and a logger that
 * keeps what it was told.
 */

export class FakeClock {
  #ms: number;

  constructor(start: Date | string = "2025-01-15T10:00:00Z") {
    this.#ms = new Date(start).getTime();
  }

  readonly now = (): Date => new Date(this.#ms);

  /** Moves the clock forward; returns the new time. */
  advance(ms: number): Date {
    this.#ms += ms;
    return this.now();
  }

  /** The time `ms` from now, as RFC 3339 (what a spec field holds). */
  in(ms: number): string {
    return new Date(this.#ms + ms).toISOString();
  }
}

export type LogLevel = keyof Logger;

export interface LogLine {
  level: LogLevel;
  message: string;
  fields?: Record<string, unknown>;
}

export class RecordingLogger implements Logger {
  readonly lines: LogLine[] = [];
  readonly debug = this.#record("debug");
  readonly info = this.#record("info");
  readonly warn = this.#record("warn");
  readonly error = this.#record("error");

  #record(level: LogLevel) {
    return (message: string, fields?: Record<string, unknown>) => {
      this.lines.push({ level, message, ...(fields && { fields }) });
    };
  }

  /** The messages logged at `level`. */
  at(level: LogLevel): string[] {
    return this.lines.filter(l => l.level === level).map(l => l.message);
  }
}

export interface TestOperatorOptions {
  /** Render slots (default 1; 0 is unlimited, as Slots takes it). */
  renders?: number;
  /** The wait after finding every render slot taken (default 2000). */
  requeueDelayMs?: number;
  /** The function catalog (default: one with no ConfigMap, so the built-in defaults). */
  catalog?: CatalogHolder;
  /** How pipeline functions run (default: by the catalog, with no pod runtime). */
  runtime?: FunctionRuntime;
  /** When the clock starts (default 2025-01-15T10:00:00Z). */
  start?: Date | string;
  cluster?: Omit<MemoryClusterOptions, "now">;
}

export interface TestOperator {
  ctx: OperatorContext;
  cluster: MemoryCluster;
  clock: FakeClock;
  log: RecordingLogger;
  /** The render slots `ctx.render` shares: take them to make a render requeue. */
  slots: Slots;
  /** A folder removed by close(): git caches and local repositories live under it. */
  tmp: string;
  /** A new empty bare repository (branch main) under `tmp`, as a file URL. */
  localRepository(name: string): Promise<string>;
  /** The cluster calls logged from now on (those already logged are dropped). */
  callsFrom(): () => string[];
  /** Closes every content store the context opened and removes `tmp`. */
  close(): Promise<void>;
}

export async function testOperator(options: TestOperatorOptions = {}): Promise<TestOperator> {
  const clock = new FakeClock(options.start);
  const cluster = new MemoryCluster({ ...options.cluster, now: clock.now });
  const log = new RecordingLogger();
  const slots = new Slots(options.renders ?? 1);
  const tmp = await mkdtemp(join(tmpdir(), "porch-reconciler-test-"));
  const catalog =
    options.catalog ??
    new CatalogHolder({ origin: "the test catalog", builtinNames: Object.keys(BUILTIN_FUNCTIONS) });
  const ctx = createContext({
    cluster,
    log,
    revisions: new RevisionCache(cluster),
    variants: new WatchCache(variantIndexers),
    render: {
      slots,
      requeueDelayMs: options.requeueDelayMs ?? 2000,
      runtime: options.runtime ?? createFunctionRuntime({ catalog }),
      catalog,
      catalogFailures: new Map(),
      // Jitter fixed at the middle: a retry's delay is three quarters of its full backoff.
      capacityRetries: new CapacityRetries({ ...DEFAULT_CAPACITY_BACKOFF, random: () => 0.5 }),
    },
    now: clock.now,
    gitCacheRoot: join(tmp, "cache"),
  });

  // Every store the context hands out, so close() stops their git helper processes.
  const opened = new Set<ContentStore>();
  const stores = ctx.stores;
  const of = stores.of.bind(stores);
  stores.of = async repo => {
    const store = await of(repo);
    opened.add(store);
    return store;
  };

  return {
    ctx,
    cluster,
    clock,
    log,
    slots,
    tmp,
    async localRepository(name) {
      const root = join(tmp, "remotes");
      return (await createBareRepo(root, pathToFileURL(root).href, name)).url;
    },
    callsFrom() {
      const start = cluster.calls.length;
      return () => cluster.calls.slice(start);
    },
    async close() {
      for (const store of opened) store.close();
      await rm(tmp, { recursive: true, force: true });
    },
  };
}
