// One fuzz case from the campaign's seed and its index alone: which kind, which valid object,
// which mutations; so a failing case is made again with caseAt(seed, index).
import { MUTATION_KINDS, MUTATIONS, type MutationKind } from "./mutations";
import { caseRng, type Rng } from "../prng";
import { FUZZ_KINDS, SEEDS, type FuzzKind, type JsonObject } from "./seeds";

export interface FuzzCase {
  seed: number;
  index: number;
  kind: FuzzKind;
  /** The mutations applied, in order, each with the field path it changed. */
  mutations: { kind: MutationKind; path: string }[];
  object: JsonObject;
}

/** Bodies stay under this (the API server refuses requests over 3 MiB before any admission). */
export const MAX_BODY_BYTES = 2.5 * 1024 * 1024;

/**
 * Applies one mutation the object has a field for: kinds tried in a random order, so those a
 * kind has no field for (CEL outside sets) share their turn evenly among the others.
 */
function mutateOnce(rng: Rng, obj: JsonObject, kind: FuzzKind) {
  const order = [...MUTATION_KINDS];
  for (let i = order.length - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [order[i], order[j]] = [order[j], order[i]];
  }
  for (const mutation of order) {
    const path = MUTATIONS[mutation](rng, obj, kind);
    if (path !== undefined) return { kind: mutation, path };
  }
  return undefined;
}

function build(rng: Rng, count: number) {
  const kind = rng.pick(FUZZ_KINDS);
  const object = structuredClone(rng.pick(SEEDS[kind]));
  const mutations: FuzzCase["mutations"] = [];
  for (let i = 0; i < count; i++) {
    const applied = mutateOnce(rng, object, kind);
    if (applied) mutations.push(applied);
  }
  return { kind, object, mutations };
}

/** Case `index` of the campaign seeded with `seed`. */
export function caseAt(seed: number, index: number): FuzzCase {
  const rng = caseRng(seed, index);
  // Most cases change one thing; some stack two or three (a wrong enum beside bad CEL).
  const count = rng.chance(0.7) ? 1 : rng.int(2, 3);
  let built = build(rng, count);
  // Stacked huge strings could pass the API server's limit: then one mutation, drawn afresh.
  if (Buffer.byteLength(JSON.stringify(built.object)) > MAX_BODY_BYTES) {
    const again = caseRng(seed, index);
    again.chance(0.7);
    built = build(again, 1);
  }
  return { seed, index, ...built };
}
