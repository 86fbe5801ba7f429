// One long-lived `git cat-file --batch` per cache: object reads without a process per object
// (listing 100 packages spawned ~400 processes before; see bench/git-clients.ts).
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { GitStoreError } from "./errors";

export interface RawObject {
  type: string;
  body: Buffer;
}

interface Pending {
  oid: string;
  resolve: (o: RawObject) => void;
  reject: (e: Error) => void;
}

/** An idle reader process is ended after this long; the next read starts a new one. */
const IDLE_MS = 15_000;

export class CatFileBatch {
  private child: ChildProcessWithoutNullStreams | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private buffer = Buffer.alloc(0);
  private readonly queue: Pending[] = [];

  constructor(
    private readonly gitdir: string,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  read(oid: string): Promise<RawObject> {
    return new Promise((resolve, reject) => {
      const child = this.process();
      if (this.queue.length === 0) this.keepAlive(child, true);
      this.queue.push({ oid, resolve, reject });
      child.stdin.write(`${oid}\n`);
    });
  }

  close(): void {
    clearTimeout(this.idleTimer);
    const child = this.child;
    this.child = undefined;
    child?.stdin.end();
    child?.kill();
    this.fail(new GitStoreError("Transport", "git cat-file reader was closed"));
  }

  private process(): ChildProcessWithoutNullStreams {
    if (this.child !== undefined) return this.child;
    const child = spawn("git", [`--git-dir=${this.gitdir}`, "cat-file", "--batch"], {
      env: this.env,
      stdio: "pipe",
    });
    child.stdout.on("data", (d: Buffer) => this.child === child && this.onData(d));
    child.stdin.on("error", () => undefined);
    child.on(
      "error",
      e =>
        this.child === child &&
        this.fail(new GitStoreError("Transport", `cannot run git cat-file: ${e.message}`)),
    );
    child.on("exit", () => {
      if (this.child !== child) return; // closed on purpose, or replaced
      this.child = undefined;
      this.fail(new GitStoreError("Transport", "git cat-file exited"));
    });
    this.keepAlive(child, false);
    this.child = child;
    this.buffer = Buffer.alloc(0);
    return child;
  }

  /** Pending reads keep Node running; an idle reader does not, and ends after IDLE_MS. */
  private keepAlive(child: ChildProcessWithoutNullStreams, on: boolean): void {
    for (const handle of [child, child.stdout, child.stdin, child.stderr] as unknown as {
      ref?: () => void;
      unref?: () => void;
    }[]) {
      if (on) handle.ref?.();
      else handle.unref?.();
    }
    clearTimeout(this.idleTimer);
    if (!on)
      this.idleTimer = setTimeout(() => this.queue.length === 0 && this.close(), IDLE_MS).unref();
  }

  private onData(data: Buffer): void {
    this.buffer = this.buffer.length === 0 ? data : Buffer.concat([this.buffer, data]);
    for (;;) {
      const nl = this.buffer.indexOf(0x0a);
      if (nl < 0 || this.queue.length === 0) return;
      const [oid, type, size] = this.buffer.subarray(0, nl).toString("utf8").split(" ");
      if (type === "missing" || size === undefined) {
        this.buffer = this.buffer.subarray(nl + 1);
        this.queue
          .shift()!
          .reject(new GitStoreError("Transport", `git object ${oid} is missing from the cache`));
        if (this.queue.length === 0 && this.child !== undefined) this.keepAlive(this.child, false);
        continue;
      }
      const len = Number.parseInt(size, 10);
      if (this.buffer.length < nl + 1 + len + 1) return; // wait for the rest of the body
      const body = Buffer.from(this.buffer.subarray(nl + 1, nl + 1 + len));
      this.buffer = this.buffer.subarray(nl + 1 + len + 1);
      this.queue.shift()!.resolve({ type, body });
      if (this.queue.length === 0 && this.child !== undefined) this.keepAlive(this.child, false);
    }
  }

  private fail(err: Error): void {
    while (this.queue.length > 0) this.queue.shift()!.reject(err);
  }
}
