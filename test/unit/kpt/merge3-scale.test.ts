// The 3-way merge of a map looks fields up by key: a tenant's ConfigMap with 20,000 data keys
// blocked the event loop for minutes when every field searched the others. Counted, not timed:
// every key the merge reads is counted through the keys' own scalars.
import { isMap, isScalar, parseDocument, type YAMLMap } from "yaml";
import { merge3, type FieldConflict } from "../../../lib/kpt/merge3";

/** A map parsed from `keys`, each key's value read through `count`. */
function countedMap(keys: string[], count: () => void): YAMLMap {
  // Unique by construction; the parser's own check of that is quadratic (lib/krm/unique-keys.ts).
  const text = keys.map(k => `${k}: v\n`).join("") || "{}";
  const map = parseDocument(text, { uniqueKeys: false }).contents;
  if (!isMap(map)) throw new Error("not a map");
  for (const pair of map.items) {
    if (!isScalar(pair.key)) throw new Error("not a scalar key");
    const value = pair.key.value;
    Object.defineProperty(pair.key, "value", {
      get: () => {
        count();
        return value;
      },
      configurable: true,
      enumerable: true,
    });
  }
  return map;
}

const range = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);

/**
 * Local keeps the n original keys and adds n; upstream deletes every other original key and
 * adds n after the ones it keeps: all three ways a map's fields move (kept, deleted, added).
 */
function mergeCounted(n: number): { reads: number; merged: YAMLMap; conflicts: FieldConflict[] } {
  let reads = 0;
  const count = () => void reads++;
  const original = range("k", n);
  const upstream = original.flatMap((k, i) => (i % 2 === 0 ? [] : [k, `u${i}`]));
  const conflicts: FieldConflict[] = [];
  const merged = merge3(
    countedMap([...original, ...range("l", n)], count),
    countedMap(original, count),
    countedMap(upstream, count),
    { listKeys: () => undefined, onConflict: c => conflicts.push(c) },
  );
  if (!isMap(merged)) throw new Error("the merge did not give a map");
  return { reads, merged, conflicts };
}

describe("merge3 of a large map", () => {
  it("reads each key a bounded number of times, however many keys (linear, not quadratic)", () => {
    const perKey: number[] = [];
    for (const n of [1000, 4000, 20000]) {
      const { reads } = mergeCounted(n);
      // 3n keys on the local side, 2n original, n upstream: 6n keys in all.
      perKey.push(reads / (6 * n));
      expect(reads).toBeLessThan(20 * 6 * n);
    }
    // Linear: the reads per key do not grow with the map (quadratic would grow 20-fold).
    expect(perKey[2]).toBeLessThan(perKey[0] * 1.5);
  });

  it("keeps local fields, drops upstream's deletions and adds upstream's after their predecessor", () => {
    const { merged, conflicts } = mergeCounted(4);
    expect(merged.items.map(p => String((p.key as { value: unknown }).value))).toEqual([
      "k1",
      "u1",
      "k3",
      "u3",
      "l0",
      "l1",
      "l2",
      "l3",
    ]);
    expect(conflicts).toEqual([]);
  });
});
