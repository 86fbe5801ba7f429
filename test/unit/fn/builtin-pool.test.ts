// The bounded built-in runtime: built-ins run in worker threads, each run within its time,
// heap, input and output bounds, and a worker that exceeded one is replaced.
import { DEFAULT_BUILTIN_LIMITS, type BuiltinLimits } from "../../../lib/fn/bounds";
import { BUILTIN_FUNCTIONS } from "../../../lib/fn/builtins";
import { BuiltinPool, builtinWorkerEntry, type WorkerEntry } from "../../../lib/fn/builtin-pool";
import { createFunctionRuntime } from "../../../lib/fn/runtime";
import { renderPackage } from "../../../lib/fn/render";
import type { PackageFiles } from "../../../lib/fn/types";
import { catalogHolder } from "../../support/function-catalog";
import { multiplyingFiles, multiplyingPipeline } from "../../support/multiplying-package";
import { kptfile } from "./helpers";

const pools: BuiltinPool[] = [];
afterAll(() => Promise.all(pools.map(p => p.close())));

function newPool(entry: WorkerEntry = builtinWorkerEntry(), memoryMiB = 128): BuiltinPool {
  const pool = new BuiltinPool({ entry, memoryMiB, maxWaiting: 8, startTimeoutMs: 120_000 });
  pools.push(pool);
  return pool;
}

/**
 * A worker of our own for the pool's logic: it answers "loop" by never answering, "grow" by
 * allocating until its heap is gone, anything else by echoing the input.
 */
const fakeWorker: WorkerEntry = {
  eval: true,
  workerData: undefined,
  script: `
    const { parentPort } = require("node:worker_threads");
    parentPort.on("message", job => {
      if (job.builtin === "loop") for (;;);
      if (job.builtin === "grow") { const all = []; for (;;) all.push(new Array(100000).fill(all.length)); }
      parentPort.postMessage({ output: job.input });
    });
    parentPort.postMessage({ ready: true });
  `,
};

const limits = (over: Partial<BuiltinLimits>): BuiltinLimits => ({
  ...DEFAULT_BUILTIN_LIMITS,
  ...over,
});

const cm = (name: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name} # the name\ndata:\n  key: "value"\n`;

const SET_LABELS = `  mutators:\n    - image: set-labels\n      configMap:\n        app: demo\n`;

/** The multiplying package of issue 26 with a Kptfile. */
const multiplyingPackage = (n: number): PackageFiles => ({
  Kptfile: kptfile(
    multiplyingPipeline("gcr.io/kpt-fn/apply-replacements:v0.1.1").replace(/^pipeline:\n/, ""),
    "bomb",
  ),
  ...multiplyingFiles(n),
});

describe("the built-in pool's own logic (a worker of the test's)", () => {
  it("stops a run at its timeout and replaces the worker", async () => {
    const pool = newPool(fakeWorker);
    const stuck = await pool.run("loop", "x", limits({ timeoutMs: 200 }));
    expect(stuck).toMatchObject({
      exitCode: 1,
      bound: "FunctionTimeout",
      failure: "ran longer than its timeout of 200 ms and was stopped",
    });
    expect(await pool.run("echo", "after", limits({}))).toMatchObject({
      exitCode: 0,
      stdout: "after",
    });
  });

  it("names the heap limit when a worker runs out of it, and replaces the worker", async () => {
    const pool = newPool(fakeWorker);
    const grown = await pool.run("grow", "x", limits({ maxMemoryMiB: 32, timeoutMs: 600_000 }));
    expect(grown).toMatchObject({
      exitCode: 1,
      bound: "FunctionMemoryLimit",
      failure: "needed more than its maxMemory of 32 MiB and was stopped",
    });
    expect(await pool.run("echo", "after", limits({}))).toMatchObject({
      exitCode: 0,
      stdout: "after",
    });
  });

  it("keeps its workers' heaps within its memory budget; the other runs wait", async () => {
    const pool = newPool(fakeWorker, 64);
    const runs = ["a", "b", "c"].map(input =>
      pool.run("echo", input, limits({ maxMemoryMiB: 32 })),
    );
    expect([pool.workers, pool.heldMiB]).toEqual([2, 64]);
    expect((await Promise.all(runs)).map(r => r.stdout)).toEqual(["a", "b", "c"]);
    expect([pool.workers, pool.heldMiB]).toEqual([2, 64]);
  });

  it("fails a run past its wait queue as QueueFull, capacity rather than a bound", async () => {
    const pool = newPool(fakeWorker, 32);
    // One run holds the only worker the budget allows, eight wait (maxWaiting), the tenth is refused.
    const runs = Array.from({ length: 10 }, (_, i) =>
      pool.run("echo", String(i), limits({ maxMemoryMiB: 32 })),
    );
    const outcomes = await Promise.all(runs);
    expect(outcomes.slice(0, 9).map(r => r.stdout)).toEqual([
      "0",
      "1",
      "2",
      "3",
      "4",
      "5",
      "6",
      "7",
      "8",
    ]);
    expect(outcomes[9]).toEqual({
      stdout: "",
      stderr: "",
      exitCode: 1,
      failure: "the built-in function pool has 8 runs waiting already",
      capacity: "QueueFull",
    });
  });

  it("stops idle workers to make room for a run of another heap size", async () => {
    const pool = newPool(fakeWorker, 64);
    await Promise.all(["a", "b"].map(i => pool.run("echo", i, limits({ maxMemoryMiB: 32 }))));
    expect(pool.heldMiB).toBe(64);
    const big = await pool.run("echo", "big", limits({ maxMemoryMiB: 64 }));
    expect(big.stdout).toBe("big");
    expect([pool.workers, pool.heldMiB]).toEqual([1, 64]);
  });

  it("refuses a run whose heap is more than the whole budget, naming the setting", async () => {
    const pool = newPool(fakeWorker, 64);
    expect(await pool.run("echo", "x", limits({ maxMemoryMiB: 96 }))).toMatchObject({
      exitCode: 1,
      bound: "FunctionMemoryLimit",
      failure:
        "its maxMemory of 96 MiB is more than the 64 MiB all built-in workers may hold (PORCH_PEPR_BUILTIN_MEMORY)",
    });
    expect(pool.workers).toBe(0);
  });
});

describe("lib/fn/builtins in the pool (the real worker)", () => {
  const pool = newPool(builtinWorkerEntry(), 192);
  const pooled = createFunctionRuntime({ builtinPool: pool });
  const inProcess = createFunctionRuntime({ builtins: BUILTIN_FUNCTIONS });

  it("renders byte for byte as the built-ins did in this thread", async () => {
    const packages: PackageFiles[] = [
      {
        Kptfile: kptfile(SET_LABELS),
        "a.yaml": cm("a"),
        "b.yaml": `# head\n${cm("b")}---\n${cm("c")}`,
      },
      multiplyingPackage(3),
      {
        Kptfile: kptfile(
          `  mutators:\n    - image: search-replace\n      configMap:\n        by-value-regex: (.*)-x\n        put-comment: "kpt-set: \${1}"\n    - image: set-namespace\n      configMap:\n        namespace: ns1\n`,
        ),
        "r.yaml":
          "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one-x\ndata: {a: '1', b: \"2\"}\n",
      },
      { Kptfile: kptfile(`  validators:\n    - image: set-labels\n`), "a.yaml": cm("a") },
    ];
    for (const files of packages) {
      const [there, here] = [
        await renderPackage(files, { runtime: pooled }),
        await renderPackage(files, { runtime: inProcess }),
      ];
      expect(there.files).toEqual(here.files);
      expect(there.ok).toBe(here.ok);
      expect(there.error?.message).toBe(here.error?.message);
      expect(there.results.items.map(r => r.results)).toEqual(
        here.results.items.map(r => r.results),
      );
    }
  });

  it("bounds the output: a multiplying apply-replacements ends FunctionOutputLimit", async () => {
    const runtime = createFunctionRuntime({
      builtinPool: pool,
      catalog: catalogHolder({ builtinLimits: { maxOutputBytes: 64 * 1024 } }),
    });
    const out = await renderPackage(multiplyingPackage(12), { runtime });
    expect(out.ok).toBe(false);
    expect(out.error?.reason).toBe("FunctionOutputLimit");
    expect(out.error?.message).toMatch(
      /^package "\.": mutator 0 \(gcr\.io\/kpt-fn\/apply-replacements:v0\.1\.1, runtime builtin\): wrote \d+ bytes of output, more than maxOutputBytes 65536$/,
    );
    // The files are as they were: nothing of the failed function is kept.
    expect(out.files["thing.yaml"]).toBe(multiplyingPackage(12)["thing.yaml"]);
  });

  it("bounds the input before a worker is asked", async () => {
    const runtime = createFunctionRuntime({
      builtinPool: pool,
      catalog: catalogHolder({
        functions: [
          { image: "**/set-labels:*", runtime: "builtin", limits: { maxInputBytes: 1024 } },
        ],
      }),
    });
    const big = `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  k: ${"x".repeat(2000)}\n`;
    const out = await renderPackage({ Kptfile: kptfile(SET_LABELS), "big.yaml": big }, { runtime });
    expect(out.error?.reason).toBe("FunctionInputLimit");
    expect(out.error?.message).toMatch(
      /its input ResourceList is \d+ bytes, more than maxInputBytes 1024$/,
    );
  });

  it("ends a multiplying apply-replacements at the worker's heap limit; the pool recovers", async () => {
    const runtime = createFunctionRuntime({
      builtinPool: pool,
      catalog: catalogHolder({
        builtinLimits: { maxMemory: "96Mi", timeout: "10m", maxOutputBytes: 1073741824 },
      }),
    });
    const out = await renderPackage(multiplyingPackage(40), { runtime });
    expect(out.error?.reason).toBe("FunctionMemoryLimit");
    expect(out.error?.message).toContain(
      "needed more than its maxMemory of 96 MiB and was stopped",
    );
    const after = await renderPackage(
      { Kptfile: kptfile(SET_LABELS), "a.yaml": cm("a") },
      { runtime },
    );
    expect(after.ok).toBe(true);
    expect(after.files["a.yaml"]).toContain("app: demo");
  }, 300_000); // not a timing assertion: room for a busy machine to fill 96 MiB
});
