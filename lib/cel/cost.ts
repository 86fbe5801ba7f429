/**
 * CEL cost, as Kubernetes counts it (k8s.io/apiserver/pkg/apis/cel, cel-go's cost model):
 * one unit per evaluated node, strings cost a tenth of a unit per character they carry, a
 * regex match costs per input character times a quarter of the pattern's length. A template
 * expression is a tenant's program run by the controller every tenant shares, so it gets
 * Kubernetes' budgets: an evaluation that would block the event loop is stopped, not waited
 * for.
 */

/**
 * Kubernetes' PerCallLimit ("roughly 0.1 second for each expression" in Go). cel-js with the
 * meter is slower: a comprehension stopped at this limit took 0.2-0.3 s on the 2-core
 * development machine.
 */
export const COST_LIMIT_PER_EVALUATION = 1_000_000;

/**
 * Kubernetes' RuntimeCELCostBudget per object: here all the expressions one reconcile of a
 * PackageVariantSet evaluates, over all its targets, so one set holds the event loop for at
 * most a few seconds. A set of 1000 targets with 10 ordinary expressions (tens of units
 * each) uses about 1% of it.
 */
export const COST_LIMIT_PER_SET = 10_000_000;

/** cel-go's StringTraversalCostFactor: a string costs one unit per 10 characters. */
export const STRING_COST_PER_CHARACTER = 0.1;

/** cel-go's RegexStringLengthCostFactor: matching costs a quarter unit per pattern character. */
export const REGEX_COST_PER_PATTERN_CHARACTER = 0.25;

/** The cost of handling a string (or list) of this length. */
export function sizeCost(length: number): number {
  return Math.ceil(length * STRING_COST_PER_CHARACTER);
}

/** The cost of a regex match: every input character against the pattern. */
export function matchCost(inputLength: number, patternLength: number): number {
  const perCharacter = Math.max(1, Math.ceil(patternLength * REGEX_COST_PER_PATTERN_CHARACTER));
  return 1 + sizeCost(inputLength) * perCharacter;
}

/** Thrown when an evaluation exceeds its budget; what it says is the whole message. */
export class CostLimitExceededError extends Error {}

/** The budget of one object: shared by the evaluations made for it, spent as they go. */
export class CelCostBudget {
  private spent = 0;

  constructor(
    readonly limit: number = COST_LIMIT_PER_SET,
    readonly what = "the PackageVariantSet",
  ) {}

  get remaining(): number {
    return Math.max(0, this.limit - this.spent);
  }

  spend(cost: number): void {
    this.spent += cost;
  }
}

/** Counts the cost of one evaluation and stops it at the first unit over its limit. */
export class CostMeter {
  spent = 0;
  exceeded = false;

  constructor(
    readonly limit: number,
    private readonly message: string,
  ) {}

  charge(cost: number): void {
    this.spent += cost;
    if (this.spent > this.limit) {
      this.exceeded = true;
      throw new CostLimitExceededError(this.message);
    }
  }

  /** cel-js absorbs errors in `||`, `&&` and exists(): an overrun is re-raised at the end. */
  assertWithinLimit(): void {
    if (this.exceeded) throw new CostLimitExceededError(this.message);
  }
}

/** The meter of the evaluation running now (evaluation is synchronous), if any. */
let active: CostMeter | undefined;

export function charge(cost: number): void {
  active?.charge(cost);
}

/** Runs `evaluate` with `meter` counting every unit it spends. */
export function metered<T>(meter: CostMeter, evaluate: () => T): T {
  const previous = active;
  active = meter;
  try {
    const value = evaluate();
    meter.assertWithinLimit();
    return value;
  } catch (error) {
    meter.assertWithinLimit();
    throw error;
  } finally {
    active = previous;
  }
}
