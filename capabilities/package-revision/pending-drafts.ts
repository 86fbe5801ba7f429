// New drafts whose push is under way, so their reconcile need not wait for it in a worker: the
// source step hands its ref update in and ends; when the push lands (or fails), the revision is
// enqueued again and its next reconcile takes the result and goes on from there. Process memory
// only: after a restart the level-triggered source step finds the draft (in git, or not) again.
import type { PackageRevisionInfo } from "../../lib/git";

/** What a handed-in draft's next reconcile goes on with; `H` is what the step kept of its work. */
export type Landing<H> =
  | { state: "pending" }
  | { state: "landed"; info: PackageRevisionInfo; held: H }
  | { state: "failed"; error: unknown };

interface Entry<H> {
  uid: string;
  repository: string;
  held: H;
  landing: Landing<H>;
}

export class PendingDrafts<H> {
  readonly #entries = new Map<string, Entry<H>>();
  /** Entries per repository ("namespace/name"): writers handed in, not yet gone on. */
  readonly #perRepository = new Map<string, number>();
  #wake: (key: string) => void = () => {};

  /** How a revision whose push settled is reconciled again (the controller's add). */
  onSettled(wake: (key: string) => void): void {
    this.#wake = wake;
  }

  /** Hands a draft's push in: `push` settles when its branch is in git, or fails. */
  handIn(
    key: string,
    uid: string,
    repository: string,
    held: H,
    push: Promise<PackageRevisionInfo>,
  ): void {
    const entry: Entry<H> = { uid, repository, held, landing: { state: "pending" } };
    this.forget(key);
    this.#entries.set(key, entry);
    this.#perRepository.set(repository, this.handedIn(repository) + 1);
    const settle = (landing: Landing<H>) => {
      if (this.#entries.get(key) !== entry) return;
      entry.landing = landing;
      this.#wake(key);
    };
    push.then(
      info => settle({ state: "landed", info, held }),
      (error: unknown) => settle({ state: "failed", error }),
    );
  }

  /**
   * A draft pushed while its reconcile waits (no other writer was on its way): counted with the
   * handed-in ones until it settles, so the push does not wait for its own writer.
   */
  async writing<T>(repository: string, push: Promise<T>): Promise<T> {
    this.#perRepository.set(repository, this.handedIn(repository) + 1);
    try {
      return await push;
    } finally {
      this.#drop(repository);
    }
  }

  /**
   * The revision's handed-in draft: pending (leave it), or settled (taken: the caller goes on
   * with it); undefined when none, or one of an earlier object of the same name.
   */
  take(key: string, uid: string): Landing<H> | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.uid !== uid) return void this.forget(key);
    if (entry.landing.state !== "pending") this.forget(key);
    return entry.landing;
  }

  /** Drops a revision's entry (taken, or the object is gone). */
  forget(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#drop(entry.repository);
  }

  #drop(repository: string): void {
    const left = this.handedIn(repository) - 1;
    if (left > 0) this.#perRepository.set(repository, left);
    else this.#perRepository.delete(repository);
  }

  /** Drafts of a repository handed in and not yet gone on with, or being pushed (writing). */
  handedIn(repository: string): number {
    return this.#perRepository.get(repository) ?? 0;
  }
}
