// Runs built-in functions off the main event loop: worker threads, each with a V8 heap limit,
// one run at a time each, whose heaps together stay within the pool's memory budget. A run past its time is stopped by terminating its worker; a
// worker that runs out of heap dies; either way the next run gets a fresh worker. So a runaway
// render costs one worker's bounded memory and time, never the watches, admission or other
// tenants' renders.
import { Worker } from "node:worker_threads";
import type { BuiltinLimits } from "../bounds";
import type { ExecOutcome } from "../exec";
import type { BuiltinJob, WorkerMessage } from "./host";
import type { WorkerEntry } from "./entry";
import { BUILTIN_MEMORY_VARIABLE } from "./settings";

export interface BuiltinPoolOptions {
  entry: WorkerEntry;
  /**
   * The heap all workers together may hold, in MiB: a run waits until its maxMemoryMiB fits
   * beside the workers busy now (idle ones are stopped to make room).
   */
  memoryMiB: number;
  /** Runs waiting for a worker at most; more fail at once. */
  maxWaiting: number;
  /** A worker that does not listen within this long is stopped (loading the module is slow). */
  startTimeoutMs: number;
}

/** Each worker's young generation and stack, beside the limit of its heap. */
const YOUNG_GENERATION_MB = 16;
const STACK_MB = 4;

/** How a run ended: the worker's reply, its death, or a timer. */
type Ending =
  | Exclude<WorkerMessage, { ready: true }>
  | { died: Error | undefined }
  | { late: true };

interface PoolWorker {
  worker: Worker;
  memoryMiB: number;
  busy: boolean;
  ready: Promise<void>;
  /** Settles the run in progress; set while busy. */
  settle?: (ending: Ending) => void;
}

const ok = (stdout: string): ExecOutcome => ({ stdout, stderr: "", exitCode: 0 });
const failed = (
  failure: string,
  bound?: ExecOutcome["bound"],
  capacity?: ExecOutcome["capacity"],
): ExecOutcome => ({
  stdout: "",
  stderr: "",
  exitCode: 1,
  failure,
  ...(bound && { bound }),
  ...(capacity && { capacity }),
});

export class BuiltinPool {
  readonly #workers = new Set<PoolWorker>();
  readonly #waiting: (() => void)[] = [];

  constructor(private readonly options: BuiltinPoolOptions) {}

  /** Workers alive now (idle or busy). */
  get workers(): number {
    return this.#workers.size;
  }

  /** Runs built-in `builtin` over the ResourceList `input`; never rejects. */
  async run(builtin: string, input: string, limits: BuiltinLimits): Promise<ExecOutcome> {
    if (limits.maxMemoryMiB > this.options.memoryMiB)
      return failed(
        `its maxMemory of ${limits.maxMemoryMiB} MiB is more than the ${this.options.memoryMiB} MiB all built-in workers may hold (${BUILTIN_MEMORY_VARIABLE})`,
        "FunctionMemoryLimit",
      );
    const worker = await this.#acquire(limits.maxMemoryMiB);
    if (!worker)
      return failed(
        `the built-in function pool has ${this.options.maxWaiting} runs waiting already`,
        undefined,
        "QueueFull",
      );
    try {
      return await this.#runOn(
        worker,
        { builtin, input, maxOutputBytes: limits.maxOutputBytes },
        limits,
      );
    } finally {
      worker.busy = false;
      worker.settle = undefined;
      this.#waiting.shift()?.();
    }
  }

  /** Stops every worker. */
  async close(): Promise<void> {
    const all = [...this.#workers];
    this.#workers.clear();
    await Promise.all(all.map(w => w.worker.terminate()));
  }

  async #runOn(w: PoolWorker, job: BuiltinJob, limits: BuiltinLimits): Promise<ExecOutcome> {
    const answer = new Promise<Ending>(resolve => (w.settle = resolve));
    let startTimer: NodeJS.Timeout | undefined;
    const late = new Promise<{ late: true }>(resolve => {
      startTimer = setTimeout(() => resolve({ late: true }), this.options.startTimeoutMs);
    });
    const started = await Promise.race([w.ready.then(() => undefined), answer, late]);
    clearTimeout(startTimer);
    if (started) return this.#outcome(w, started, limits, "started");
    w.worker.postMessage(job);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<{ late: true }>(resolve => {
      timer = setTimeout(() => resolve({ late: true }), limits.timeoutMs);
    });
    try {
      return this.#outcome(w, await Promise.race([answer, timeout]), limits, "ran");
    } finally {
      clearTimeout(timer);
    }
  }

  #outcome(
    w: PoolWorker,
    message: Ending,
    limits: BuiltinLimits,
    stage: "started" | "ran",
  ): ExecOutcome {
    if ("output" in message) return ok(message.output);
    if ("error" in message) return failed(message.error);
    if ("outputBytes" in message)
      return failed(
        `wrote ${message.outputBytes} bytes of output, more than maxOutputBytes ${limits.maxOutputBytes}`,
        "FunctionOutputLimit",
      );
    this.#drop(w);
    if ("late" in message)
      return stage === "ran"
        ? failed(
            `ran longer than its timeout of ${limits.timeoutMs} ms and was stopped`,
            "FunctionTimeout",
          )
        : failed(`its worker did not start within ${this.options.startTimeoutMs} ms`);
    const code = (message.died as { code?: string } | undefined)?.code;
    if (code === "ERR_WORKER_OUT_OF_MEMORY")
      return failed(
        `needed more than its maxMemory of ${limits.maxMemoryMiB} MiB and was stopped`,
        "FunctionMemoryLimit",
      );
    return failed(`its worker stopped: ${message.died?.message ?? "it exited"}`);
  }

  /** The heap limits of the workers alive now, summed. */
  get heldMiB(): number {
    let sum = 0;
    for (const w of this.#workers) sum += w.memoryMiB;
    return sum;
  }

  /** An idle worker with this heap limit, a new one, or one after a wait; undefined: too many wait. */
  async #acquire(memoryMiB: number): Promise<PoolWorker | undefined> {
    for (;;) {
      const idle = [...this.#workers].filter(w => !w.busy);
      let worker = idle.find(w => w.memoryMiB === memoryMiB);
      for (const other of idle) {
        if (worker || this.heldMiB + memoryMiB <= this.options.memoryMiB) break;
        this.#drop(other);
      }
      if (!worker && this.heldMiB + memoryMiB <= this.options.memoryMiB)
        worker = this.#spawn(memoryMiB);
      if (worker) {
        worker.busy = true;
        return worker;
      }
      if (this.#waiting.length >= this.options.maxWaiting) return undefined;
      await new Promise<void>(resolve => this.#waiting.push(resolve));
    }
  }

  #spawn(memoryMiB: number): PoolWorker {
    const { entry } = this.options;
    const worker = new Worker(entry.script, {
      eval: entry.eval,
      workerData: entry.workerData,
      resourceLimits: {
        maxOldGenerationSizeMb: memoryMiB,
        maxYoungGenerationSizeMb: YOUNG_GENERATION_MB,
        stackSizeMb: STACK_MB,
      },
    });
    // An idle worker does not keep the process alive; a run's own timer does.
    worker.unref();
    let markReady!: () => void;
    const w: PoolWorker = {
      worker,
      memoryMiB,
      busy: false,
      ready: new Promise<void>(resolve => (markReady = resolve)),
    };
    let died: Error | undefined;
    worker.on("message", (message: WorkerMessage) => {
      if ("ready" in message) markReady();
      else w.settle?.(message);
    });
    worker.on("error", error => (died = error));
    worker.on("exit", () => {
      this.#workers.delete(w);
      w.settle?.({ died });
    });
    this.#workers.add(w);
    return w;
  }

  /** Stops a worker (timed out, or idle with another heap limit); its exit is not awaited. */
  #drop(w: PoolWorker): void {
    this.#workers.delete(w);
    w.settle = undefined;
    void w.worker.terminate();
  }
}
