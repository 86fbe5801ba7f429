/** The shortest wait between reconciles of a set that its own variants' events cause. */
export const MIN_VARIANT_EVENT_DELAY_MS = 1_000;
/** The longest: a set's status is never more than this behind its variants. */
export const MAX_VARIANT_EVENT_DELAY_MS = 30_000;
/** Per variant of the set: what one reconcile of a set costs grows with its size. */
const PER_VARIANT_MS = 10;

/**
 * How long a set's variants' events are coalesced into one reconcile of the set. Each
 * reconcile plans every target and writes a status listing every target, and a fan-out of N
 * variants sends several events per variant: a fixed window would make the set's reconciles
 * cost N × N over a fan-out; a window that grows with N keeps them at a constant number of
 * reconciles of cost N (10 ms per variant, 1 s to 30 s: 10 s for 1,000 variants).
 */
export function variantEventDelayMs(variants: number): number {
  return Math.min(
    MAX_VARIANT_EVENT_DELAY_MS,
    Math.max(MIN_VARIANT_EVENT_DELAY_MS, variants * PER_VARIANT_MS),
  );
}
