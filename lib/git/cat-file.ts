// One long-lived `git cat-file --batch` per cache: object reads without a process per object
// (listing 100 packages spawned ~400 processes before; see bench/git-clients.ts). Each body is
// copied once into a buffer of the size its header gives (a 96 MiB blob read in 0.6 s; joining a
// growing buffer per chunk took 228 s); a body over the read's limit streams past, never held.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { GitStoreError } from "./errors";
import { boundedGit } from "./process-memory";
import { ObjectTooLargeError, type ObjectLimit } from "./content-limits";

export interface RawObject {
  type: string;
  body: Buffer;
}

interface Pending {
  oid: string;
  limit?: ObjectLimit;
  resolve: (o: RawObject) => void;
  reject: (e: Error) => void;
}

/** The body being received: `data` undefined when it is skipped (over the limit). */
interface Body {
  type: string;
  size: number;
  data: Buffer | undefined;
  /** Bytes of the body and its closing newline received so far. */
  received: number;
  done: (o: RawObject) => void;
  failed: (e: Error) => void;
}

/** A header line is "<oid> <type> <size>": anything longer is not git's. */
const MAX_HEADER = 256;

/** An idle reader process is ended after this long; the next read starts a new one. */
const IDLE_MS = 15_000;

export class CatFileBatch {
  private child: ChildProcessWithoutNullStreams | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private header = Buffer.alloc(0);
  private body: Body | undefined;
  private readonly queue: Pending[] = [];

  constructor(
    private readonly gitdir: string,
    private readonly env: NodeJS.ProcessEnv,
    /** The data memory git may take (process-memory.ts); unbounded when not given. */
    private readonly memoryBytes?: number,
  ) {}

  /** The object; one larger than `limit` rejects with ObjectTooLargeError, unread. */
  read(oid: string, limit?: ObjectLimit): Promise<RawObject> {
    return new Promise((resolve, reject) => {
      const child = this.process();
      if (this.queue.length === 0) this.keepAlive(child, true);
      this.queue.push({ oid, limit, resolve, reject });
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
    const args = [`--git-dir=${this.gitdir}`, "cat-file", "--batch"];
    const [command, argv] =
      this.memoryBytes === undefined ? ["git", args] : boundedGit(args, this.memoryBytes);
    const child = spawn(command, argv, { env: this.env, stdio: "pipe" });
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
    this.header = Buffer.alloc(0);
    this.body = undefined;
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
    for (let pos = 0; pos < data.length; ) {
      if (this.body !== undefined) {
        pos = this.receive(this.body, data, pos);
        continue;
      }
      const nl = data.indexOf(0x0a, pos);
      if (nl < 0) {
        this.header = Buffer.concat([this.header, data.subarray(pos)]);
        if (this.header.length > MAX_HEADER) this.broken("an overlong object header");
        return;
      }
      const line = Buffer.concat([this.header, data.subarray(pos, nl)]).toString("latin1");
      this.header = Buffer.alloc(0);
      pos = nl + 1;
      this.onHeader(line);
    }
  }

  private onHeader(line: string): void {
    const pending = this.queue.shift();
    if (pending === undefined) return this.broken("an object nobody asked for");
    const [oid, type, sizeText] = line.split(" ");
    const size = Number(sizeText);
    if (type === "missing" || sizeText === undefined || !Number.isSafeInteger(size) || size < 0) {
      pending.reject(new GitStoreError("Transport", `git object ${oid} is missing from the cache`));
      return this.settled();
    }
    const over = pending.limit !== undefined && size > pending.limit.bytes;
    if (over) pending.reject(new ObjectTooLargeError(pending.oid, size, pending.limit!));
    this.body = {
      type,
      size,
      data: over ? undefined : Buffer.allocUnsafe(size),
      received: 0,
      done: pending.resolve,
      failed: over ? () => undefined : pending.reject,
    };
  }

  /** Takes what `data` holds of the body from `pos`; returns where the next header starts. */
  private receive(body: Body, data: Buffer, pos: number): number {
    const take = Math.min(body.size + 1 - body.received, data.length - pos);
    if (body.data !== undefined && body.received < body.size)
      data.copy(body.data, body.received, pos, pos + Math.min(take, body.size - body.received));
    body.received += take;
    if (body.received === body.size + 1) {
      this.body = undefined;
      if (body.data !== undefined) body.done({ type: body.type, body: body.data });
      this.settled();
    }
    return pos + take;
  }

  private settled(): void {
    if (this.queue.length === 0 && this.body === undefined && this.child !== undefined)
      this.keepAlive(this.child, false);
  }

  /** Output the reader cannot follow: every read fails and the next one starts a new process. */
  private broken(what: string): void {
    const child = this.child;
    this.child = undefined;
    child?.kill();
    this.fail(new GitStoreError("Transport", `git cat-file sent ${what}`));
  }

  private fail(err: Error): void {
    this.body?.failed(err);
    this.body = undefined;
    this.header = Buffer.alloc(0);
    while (this.queue.length > 0) this.queue.shift()!.reject(err);
  }
}
