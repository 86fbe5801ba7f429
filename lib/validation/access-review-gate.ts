// The SubjectAccessReviews admission makes, as one process-wide resource. Every tenant's reviews
// go out under the operator's ServiceAccount to one API server, and each admission request must
// have its answers within a deadline: without a shared bound one tenant's burst of applies with
// many distinct questions queues every other tenant's reviews past that deadline (denied "could
// not check access"). So reviews in flight are bounded for the whole process and shared
// round-robin by the namespace asked about (else the user) with a cap for each (FairBudget), and
// answers are kept a few
// seconds, keyed by who asks and what, so a repeated apply asks nothing and a revoked right
// still takes effect within that time (README “Security model”).
import { BudgetWaitTimeout, FairBudget, namespaceShare } from "../controller/fair-budget";
import { countSetting } from "../count-setting";
import type { RequestUser } from "./requester";

export const REVIEWS_IN_FLIGHT_VARIABLE = "PORCH_PEPR_ACCESS_REVIEWS";
export const REVIEWS_PER_NAMESPACE_VARIABLE = "PORCH_PEPR_ACCESS_REVIEWS_PER_NAMESPACE";
export const REVIEW_CACHE_SECONDS_VARIABLE = "PORCH_PEPR_ACCESS_REVIEW_CACHE_SECONDS";

/**
 * How long one admission request's reviews may take together: well under the webhook's 10 s
 * timeout (package.json), past which the API server denies anyway.
 */
export const ADMISSION_REVIEWS_DEADLINE_MS = 7_000;

export const DEFAULT_REVIEWS_IN_FLIGHT = 16;
export const DEFAULT_REVIEW_CACHE_SECONDS = 5;
/** Answers kept at most: a few MB of keys, whatever the tenants ask. */
export const REVIEW_CACHE_ENTRIES = 10_000;

export interface ReviewGateSettings {
  /** Reviews in flight for the whole process. */
  inFlight: number;
  /** Of which one requesting user holds at most this many. */
  perNamespace: number;
  /** How long an answer is reused, in milliseconds. */
  cacheMs: number;
  /** Answers kept at most. */
  cacheEntries: number;
  /** Longest wait for a review's turn, in milliseconds (the request's deadline). */
  waitMs: number;
  warnings: string[];
}

/** The settings from the environment; a bad value is named in a warning and the default used. */
export function reviewGateSettings(
  env: Record<string, string | undefined>,
  waitMs: number,
): ReviewGateSettings {
  const inFlight = countSetting(env, REVIEWS_IN_FLIGHT_VARIABLE, DEFAULT_REVIEWS_IN_FLIGHT, 1_000);
  // 0 turns the cache off (every question asked): a count from 1 to 60 otherwise.
  const seconds =
    env[REVIEW_CACHE_SECONDS_VARIABLE]?.trim() === "0"
      ? { value: 0 }
      : countSetting(env, REVIEW_CACHE_SECONDS_VARIABLE, DEFAULT_REVIEW_CACHE_SECONDS, 60);
  return {
    inFlight: inFlight.value,
    perNamespace: Math.max(1, namespaceShare(inFlight.value, env[REVIEWS_PER_NAMESPACE_VARIABLE])),
    cacheMs: seconds.value * 1000,
    cacheEntries: REVIEW_CACHE_ENTRIES,
    waitMs,
    warnings: [inFlight.warning, "warning" in seconds ? seconds.warning : undefined].filter(
      (w): w is string => !!w,
    ),
  };
}

/**
 * Who asks and what: the user's name, uid, groups and extra (all of which the authorizer may
 * use; groups sorted, as their order does not matter) and the question.
 */
export function reviewKey(user: RequestUser, question: unknown): string {
  const extra = Object.entries(user.extra ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    user.username ?? "",
    user.uid ?? "",
    [...(user.groups ?? [])].sort(),
    extra,
    question,
  ]);
}

/**
 * Whose share a review is taken from: the namespace it asks about (a tenant's, whichever of their
 * users or ServiceAccounts applies: a namespace admin mints as many of those as they like), or
 * the user when the question names none.
 */
export function reviewOwner(user: RequestUser, question: unknown): string {
  const namespace = (question as { namespace?: unknown } | null)?.namespace;
  return typeof namespace === "string" && namespace !== ""
    ? `namespace:${namespace}`
    : `user:${user.username ?? ""}`;
}

/** Answers for `ttlMs`, at most `maxEntries` of them (the oldest dropped first). */
export class ReviewAnswers {
  readonly #answers = new Map<string, { allowed: boolean; until: number }>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number,
  ) {}

  get(key: string): boolean | undefined {
    const answer = this.#answers.get(key);
    if (answer === undefined) return undefined;
    if (this.now() < answer.until) return answer.allowed;
    this.#answers.delete(key);
    return undefined;
  }

  set(key: string, allowed: boolean): void {
    this.#answers.delete(key); // re-inserted last: the Map's order is the age order
    this.#answers.set(key, { allowed, until: this.now() + this.ttlMs });
    while (this.#answers.size > this.maxEntries)
      this.#answers.delete(this.#answers.keys().next().value as string);
  }

  get size(): number {
    return this.#answers.size;
  }
}

/** A review that did not get its turn before the deadline. */
export class ReviewWaitTimeout extends Error {}

/**
 * Answers access questions through `ask` (a SubjectAccessReview), bounded and shared fairly:
 * a cached answer is reused, the same question in flight for the same user is asked once,
 * and otherwise the question waits for its user's turn.
 */
export class ReviewGate {
  readonly #budget: FairBudget;
  readonly #answers: ReviewAnswers;
  readonly #inFlight = new Map<string, Promise<boolean>>();

  constructor(
    readonly settings: ReviewGateSettings,
    now: () => number = Date.now,
  ) {
    this.#budget = new FairBudget(settings.inFlight, settings.perNamespace, settings.waitMs);
    this.#answers = new ReviewAnswers(settings.cacheMs, settings.cacheEntries, now);
  }

  answer(user: RequestUser, question: unknown, ask: () => Promise<boolean>): Promise<boolean> {
    const key = reviewKey(user, question);
    const cached = this.#answers.get(key);
    if (cached !== undefined) return Promise.resolve(cached);
    const pending = this.#inFlight.get(key);
    if (pending) return pending;
    const asked = this.#ask(reviewOwner(user, question), key, ask).finally(() =>
      this.#inFlight.delete(key),
    );
    this.#inFlight.set(key, asked);
    return asked;
  }

  async #ask(owner: string, key: string, ask: () => Promise<boolean>): Promise<boolean> {
    try {
      await this.#budget.acquire(owner, 1);
    } catch (error) {
      if (!(error instanceof BudgetWaitTimeout)) throw error;
      throw new ReviewWaitTimeout(
        `no access review slot within ${this.settings.waitMs / 1000} s (${this.settings.inFlight} in flight for all users, ${this.settings.perNamespace} per user: ${REVIEWS_IN_FLIGHT_VARIABLE}, ${REVIEWS_PER_NAMESPACE_VARIABLE})`,
      );
    }
    try {
      const allowed = await ask();
      // Only answers are kept: a failed review is asked again next time.
      this.#answers.set(key, allowed);
      return allowed;
    } finally {
      this.#budget.release(owner, 1);
    }
  }
}
