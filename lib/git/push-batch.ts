// Batched writes to one repository: the ref updates that writers hand in while a push is under
// way wait, and go together in the next push, one refspec per ref, each with its own lease. A
// refused ref fails only the writers whose updates it carried (they refetch and plan again);
// the others' refs land. A writer's updates come in stages: a stage goes out only once the one
// before it landed whole (a proposal's branch is removed only after its tag and the branch
// commit landed), so a push that is not atomic never leaves half a step behind. A stage marked
// `together` (a publish's tag and branch commit) must land whole: such stages go in atomic
// pushes of their own, several writers' in one, and a refused ref there refuses them all (each
// writer plans again on the refetched refs). A busy repository's batch may wait a little for
// more writers (Linger); an idle one's goes at once. Pure queueing: the push itself, and when a
// batch runs, are the caller's.
import { countSetting } from "../count-setting";
import { displayUrl, GitStoreError, PushRejectedError } from "./errors";
import { TAGS } from "./layout";
import type { RefRefusal, RefUpdate, RefVerdicts } from "./client";
import { positiveSetting } from "./content-limits";

/** The error a writer meets for a refused ref: PushRejectedError when planning again helps. */
export function refusalError(ref: string, refusal: RefRefusal, url: string): GitStoreError {
  const message = `push to ${displayUrl(url)} was rejected: ${ref}: ${refusal.says}`;
  return refusal.moved ? new PushRejectedError(message) : new GitStoreError("Transport", message);
}

/** Throws for the first refused ref of a push that had to land whole. */
export function throwRefused(verdicts: RefVerdicts, url: string): void {
  for (const [ref, refusal] of verdicts) if (refusal) throw refusalError(ref, refusal, url);
}

export type { RefRefusal, RefVerdicts };

/** A writer's updates that land together or not at all (see together()). */
export type Stage = RefUpdate[] & { readonly together?: true };

/**
 * Marks a stage to land whole: it goes in an atomic push, with other writers' such stages only.
 * A publish's tag and branch commit are one: of two that numbered a revision alike (another
 * process, or a human), neither can then land its branch commit beside the other's tag.
 */
export function together(updates: RefUpdate[]): Stage {
  return Object.assign([...updates], { together: true as const });
}

/**
 * Sends updates in one push and tells what became of each ref; `atomic`: all land or none
 * (then every ref is refused).
 */
export type SendRefs = (updates: RefUpdate[], atomic: boolean) => Promise<RefVerdicts>;

export interface BatchLimits {
  /** Refs per push. */
  maxRefs: number;
  /** Bytes of the push's commands (ref names and oids): the CLI's argv, a request's head. */
  maxCommandBytes: number;
}

/** 100 refs, 64 KiB of commands: a push well inside argv and request-head limits. */
export const DEFAULT_BATCH_LIMITS: BatchLimits = { maxRefs: 100, maxCommandBytes: 65536 };

/** From PORCH_PEPR_GIT_PUSH_BATCH_REFS and PORCH_PEPR_GIT_PUSH_BATCH_BYTES. */
export function batchLimitsFromEnv(env: NodeJS.ProcessEnv): BatchLimits {
  return {
    maxRefs: Math.floor(
      positiveSetting(env.PORCH_PEPR_GIT_PUSH_BATCH_REFS, DEFAULT_BATCH_LIMITS.maxRefs),
    ),
    maxCommandBytes: Math.floor(
      positiveSetting(env.PORCH_PEPR_GIT_PUSH_BATCH_BYTES, DEFAULT_BATCH_LIMITS.maxCommandBytes),
    ),
  };
}

/**
 * How a batch waits for more writers. It goes as soon as it is full (the batch limits), or no
 * writer of the repository is on its way (`coming`), or `maxMs` after it began waiting: a
 * repository nobody else writes to pushes at once, a busy one gathers its writers' updates.
 */
export interface Linger {
  maxMs: number;
  /** Whether more writers of the repository are on their way (queued or rendering). */
  coming: () => boolean;
}

export const LINGER_VARIABLE = "PORCH_PEPR_GIT_PUSH_LINGER_MS";
/** The longest a busy repository's batch waits for more writers, by default. */
export const DEFAULT_LINGER_MS = 10_000;

/** From PORCH_PEPR_GIT_PUSH_LINGER_MS (1 to 60,000 ms); the warning names a bad setting. */
export function lingerMsFromEnv(env: NodeJS.ProcessEnv): { value: number; warning?: string } {
  return countSetting(env, LINGER_VARIABLE, DEFAULT_LINGER_MS, 60_000);
}

interface Group {
  /** Stages still to send; the first is the one queued. */
  stages: Stage[];
  resolve: () => void;
  reject: (err: unknown) => void;
}

/** Bytes one update costs in a push's commands (old oid, new oid, name, lease argument). */
export function commandBytes(u: RefUpdate): number {
  return 2 * 41 + 2 * Buffer.byteLength(u.ref) + 24;
}

export class PushBatcher {
  private queue: Group[] = [];
  private scheduled = false;
  /** The timer that ends a lingering batch's wait; set while it waits. */
  private lingering: ReturnType<typeof setTimeout> | undefined;
  /** Changes whenever the queue does (callers keep views of it until then). */
  version = 0;

  /**
   * `schedule` runs a batch later, when the repository is free (the caller's lock); it is called
   * once per batch, when the first update of that batch arrives. `send` pushes (not atomic).
   */
  constructor(
    private readonly limits: BatchLimits,
    private readonly url: string,
    private readonly schedule: (runBatch: () => Promise<RefUpdate[]>) => void,
    private readonly send: SendRefs,
    private readonly linger?: Linger,
  ) {}

  /**
   * Queues one writer's updates, stage by stage; settles when all landed, or rejects with the
   * error for its first refused ref (PushRejectedError when the remote moved), or with the
   * push's own failure. A stage after a refused one is not sent.
   */
  submit(stages: Stage[]): Promise<void> {
    const left = stages.filter(s => s.length > 0);
    if (left.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.queue.push({ stages: left, resolve, reject });
      this.version++;
      this.request();
    });
  }

  /**
   * The refs the queued (not yet sent) updates touch, each with where they leave it: an oid,
   * null when deleted.
   */
  queuedRefs(): Map<string, string | null> {
    const out = new Map<string, string | null>();
    for (const g of this.queue)
      for (const stage of g.stages) for (const u of stage) out.set(u.ref, u.oid);
    return out;
  }

  /** Whether updates wait to be sent. */
  get pending(): boolean {
    return this.queue.length > 0;
  }

  /**
   * Asks again whether a lingering batch should go: the caller's writers-on-their-way changed
   * (one ended without handing updates in).
   */
  reconsider(): void {
    this.request();
  }

  private request(): void {
    if (this.scheduled || this.queue.length === 0) return;
    if (this.linger && !this.full() && this.linger.coming()) {
      this.lingering ??= setTimeout(() => this.go(), this.linger.maxMs);
      return;
    }
    this.go();
  }

  private go(): void {
    clearTimeout(this.lingering);
    this.lingering = undefined;
    if (this.scheduled || this.queue.length === 0) return;
    this.scheduled = true;
    this.schedule(() => this.runBatch());
  }

  /** Whether the queued writers' first stages fill a push (then waiting gathers no more). */
  private full(): boolean {
    const refs = new Set<string>();
    let bytes = 0;
    for (const g of this.queue)
      for (const u of g.stages[0]) {
        if (refs.has(u.ref)) continue;
        refs.add(u.ref);
        bytes += commandBytes(u);
      }
    return refs.size >= this.limits.maxRefs || bytes >= this.limits.maxCommandBytes;
  }

  /**
   * Sends one batch and settles its writers; returns the updates that landed (the caller's refs
   * take them). Writers left out (over the limits, or touching a ref the batch already moves
   * without building on it) wait for the next batch; so does a writer's next stage.
   */
  async runBatch(): Promise<RefUpdate[]> {
    this.scheduled = false;
    const taken = this.take();
    const { groups } = taken;
    let { updates, owners } = taken;
    if (groups.length === 0) return [];
    // A writer alone in its batch sends all its stages in one atomic push: no other writer
    // waits to share them, and a writer by itself pays one push, as before batching.
    const alone = groups.length === 1 && groups[0].stages.length > 1 && distinctRefs(groups[0]);
    if (alone) {
      updates = groups[0].stages.flat();
      owners = new Map(updates.map(u => [u.ref, groups]));
    }
    const atomic = alone || groups[0].stages[0].together === true;
    // Deleting a ref that a queued update was to create: nothing to send for it. In an atomic
    // push the tags go first: a client that must send it one ref at a time (isomorphic-git on
    // a server without atomic pushes) stops at the first refusal, and a tag without its branch
    // commit is a reservation the next attempt completes, never the other way round.
    const sent = updates
      .filter(u => !(u.oid === null && u.expect === null))
      .sort((a, b) =>
        atomic ? Number(!a.ref.startsWith(TAGS)) - Number(!b.ref.startsWith(TAGS)) : 0,
      );
    let verdicts: RefVerdicts;
    try {
      verdicts = sent.length === 0 ? new Map() : await this.send(sent, atomic);
    } catch (err) {
      for (const g of groups) g.reject(err);
      this.request();
      return [];
    }
    const refused = new Set<Group>();
    for (const u of sent) {
      const refusal = verdicts.has(u.ref)
        ? verdicts.get(u.ref)
        : { moved: false, says: "the push did not report this ref" };
      if (refusal === undefined) continue;
      for (const g of owners.get(u.ref) ?? []) {
        if (!refused.has(g)) g.reject(refusalError(u.ref, refusal, this.url));
        refused.add(g);
      }
    }
    const next: Group[] = [];
    for (const g of groups) {
      if (refused.has(g)) continue;
      if (g.stages.length > 1 && !alone) next.push({ ...g, stages: g.stages.slice(1) });
      else g.resolve();
    }
    // A writer's next stage goes before what came after it, as it is older.
    this.queue = [...next, ...this.queue];
    this.version++;
    this.request();
    return updates.filter(u => !sent.includes(u) || verdicts.get(u.ref) === undefined);
  }

  /**
   * The next batch from the queue, in order: one update per ref. A writer whose update builds on
   * the batch's value for that ref (expects what an earlier writer sets it to) is merged into it:
   * the ref goes straight to the newer value, leased on the older writer's expectation, and both
   * writers hang on its verdict. Stages that must land whole and the others never share a
   * batch: the first writer's kind decides, the other kind waits for the next.
   */
  private take(): { groups: Group[]; updates: RefUpdate[]; owners: Map<string, Group[]> } {
    const groups: Group[] = [];
    const byRef = new Map<string, RefUpdate>();
    const owners = new Map<string, Group[]>();
    let bytes = 0;
    const left: Group[] = [];
    // Refs that earlier writers still have to move (in a later stage, or left waiting): a
    // writer touching one waits too, so the updates of each ref keep their order.
    const later = new Set<string>();
    const together = this.queue[0]?.stages[0].together === true;
    for (const g of this.queue) {
      const stage = g.stages[0];
      const free = !stage.some(u => later.has(u.ref)) && (stage.together === true) === together;
      const added = stage.filter(u => !byRef.has(u.ref));
      const cost = added.reduce((n, u) => n + commandBytes(u), 0);
      const chains = stage.every(u => {
        const prior = byRef.get(u.ref);
        return prior === undefined || (u.expect !== undefined && u.expect === prior.oid);
      });
      const room =
        groups.length === 0 ||
        (byRef.size + added.length <= this.limits.maxRefs &&
          bytes + cost <= this.limits.maxCommandBytes);
      if (!free || !chains || !room) {
        left.push(g);
        for (const u of g.stages.flat()) later.add(u.ref);
        continue;
      }
      for (const u of g.stages.slice(1).flat()) later.add(u.ref);
      for (const u of stage) {
        const prior = byRef.get(u.ref);
        byRef.set(u.ref, prior === undefined ? { ...u } : { ...u, expect: prior.expect });
        owners.set(u.ref, [...(owners.get(u.ref) ?? []), g]);
      }
      bytes += cost;
      groups.push(g);
    }
    this.queue = left;
    this.version++;
    return { groups, updates: [...byRef.values()], owners };
  }
}

/** Whether no ref is moved twice across a writer's stages (then they can go as one push). */
function distinctRefs(g: Group): boolean {
  const refs = g.stages.flat().map(u => u.ref);
  return new Set(refs).size === refs.length;
}
