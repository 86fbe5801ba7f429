// Slots (concurrency.ts) that a caller waits for: what the process may hold at once (bytes of
// git fetches in flight), with each namespace's share capped as Slots caps it. Waiters are
// served round-robin by namespace (each namespace's own first-in first-out), so one tenant's
// queue of large requests delays another's by at most one grant per turn; a wait is bounded and
// ends with BudgetWaitTimeout instead of hanging, once its owner had one chance to make slow
// holders of other namespaces give back what they hold (fetch-memory.ts).
import { positiveSetting } from "../git/content-limits";
import { Slots } from "./concurrency";

/**
 * One namespace's share of a bound `limit` shared between namespaces: the setting when it is a
 * positive number, else half of it, so one tenant always leaves the other half to the rest.
 */
export const namespaceShare = (limit: number, setting: string | undefined): number =>
  Math.floor(positiveSetting(setting, Math.floor(limit / 2)));

/** A wait for the budget that did not end within its bound. */
export class BudgetWaitTimeout extends Error {
  constructor(
    readonly namespace: string,
    /** Whether the namespace itself held its whole share (else: the others held the rest). */
    readonly ownShareFull: boolean,
  ) {
    super(`waited for the budget longer than allowed`);
  }
}

interface Waiter {
  amount: number;
  grant: () => void;
}

export interface BudgetUse {
  /** Amount taken now, by every namespace. */
  taken: number;
  /** Requests waiting. */
  waiting: number;
}

export class FairBudget {
  readonly slots: Slots;
  /** Each namespace's waiters, in arrival order. */
  readonly #queues = new Map<string, Waiter[]>();
  /** Namespaces with waiters, in the order of their next turn. */
  readonly #turns: string[] = [];
  #waiting = 0;

  constructor(
    limit: number,
    perNamespace: number,
    /** Longest wait for one acquire, in milliseconds. */
    readonly waitMs: number,
    private readonly onUse?: (use: BudgetUse) => void,
    /**
     * Asked once when a wait of `namespace` for `amount` runs out: whether holders of other
     * namespaces were made to give back what they hold (each releases it when it ends). If so,
     * the wait runs once more instead of failing.
     */
    private readonly reclaim?: (namespace: string, amount: number) => boolean,
  ) {
    this.slots = new Slots(limit, perNamespace);
  }

  get limit(): number {
    return this.slots.limit;
  }

  get perNamespace(): number {
    return this.slots.perNamespace;
  }

  /**
   * Resolves once `amount` is taken for `namespace`. Rejects with BudgetWaitTimeout after
   * `waitMs`; the caller checks first that `amount` can fit a namespace's share at all.
   */
  acquire(namespace: string, amount: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        amount,
        grant: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      let reclaimed = false;
      const expire = () => {
        if (!reclaimed && this.reclaim?.(namespace, amount)) {
          reclaimed = true;
          timer = setTimeout(expire, this.waitMs);
          timer.unref();
          return;
        }
        this.#drop(namespace, waiter);
        reject(
          new BudgetWaitTimeout(
            namespace,
            this.slots.heldBy(namespace) + amount > this.slots.perNamespace,
          ),
        );
      };
      let timer = setTimeout(expire, this.waitMs);
      timer.unref();
      const queue = this.#queues.get(namespace);
      if (queue) queue.push(waiter);
      else {
        this.#queues.set(namespace, [waiter]);
        this.#turns.push(namespace);
      }
      this.#waiting++;
      this.#serve();
    });
  }

  release(namespace: string, amount: number): void {
    this.slots.release(namespace, amount);
    this.#serve();
  }

  /** Grants, a namespace at a time in turn, each namespace's first waiter that fits now. */
  #serve(): void {
    for (let granted = true; granted; ) {
      granted = false;
      for (let tried = this.#turns.length; tried > 0; tried--) {
        const namespace = this.#turns.shift() as string;
        const queue = this.#queues.get(namespace) as Waiter[];
        if (this.slots.take(namespace, queue[0].amount)) {
          const waiter = queue.shift() as Waiter;
          this.#waiting--;
          waiter.grant();
          granted = true;
        }
        if (queue.length > 0) this.#turns.push(namespace);
        else this.#queues.delete(namespace);
      }
    }
    this.onUse?.({ taken: this.slots.taken, waiting: this.#waiting });
  }

  #drop(namespace: string, waiter: Waiter): void {
    const queue = this.#queues.get(namespace);
    const at = queue?.indexOf(waiter) ?? -1;
    if (queue === undefined || at < 0) return;
    queue.splice(at, 1);
    this.#waiting--;
    if (queue.length === 0) {
      this.#queues.delete(namespace);
      this.#turns.splice(this.#turns.indexOf(namespace), 1);
    }
    // A waiter that left may have been what held up the ones behind it.
    this.#serve();
  }
}
