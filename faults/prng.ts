// A small seeded PRNG (mulberry32) so that a campaign's choices can be made again from its seed:
// a fuzz case from the seed and its index alone, the soak's operations from the seed.

export interface Rng {
  /** A float in [0, 1). */
  next(): number;
  /** A whole number in [min, max]. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(p: number): boolean;
}

/** mulberry32: a float in [0, 1) per call; its whole state is one 32-bit seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function rngOf(seed: number): Rng {
  const next = seededRandom(seed);
  const int = (min: number, max: number) => min + Math.floor(next() * (max - min + 1));
  return {
    next,
    int,
    pick: items => items[int(0, items.length - 1)],
    chance: p => next() < p,
  };
}

/** The PRNG of case `index` of a campaign seeded with `seed`: independent of other cases. */
export function caseRng(seed: number, index: number): Rng {
  // Mix the index in (a Weyl step and an avalanche) so neighbouring cases do not correlate.
  let h = (seed ^ Math.imul(index + 1, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return rngOf((h ^ (h >>> 16)) >>> 0);
}
