// Heap snapshots of the watcher (`npm run bench -- --heap-snapshot`): Node writes one when it
// gets SIGUSR2 (--heapsnapshot-signal), into --diagnostic-dir. `summarizeHeap` says what the
// live objects are, by constructor, so a peak RSS can be explained by what the heap holds.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { readPid } from "./metrics";
import { pidFile, type BenchContext } from "./scenarios/context";

export const heapFlags = (dir: string) => [
  "--heapsnapshot-signal=SIGUSR2",
  `--diagnostic-dir=${dir}`,
];

const snapshots = (dir: string) => {
  try {
    return readdirSync(dir).filter(f => f.endsWith(".heapsnapshot"));
  } catch {
    return [];
  }
};

/** Asks the watcher for a heap snapshot and waits until it is written (at most 5 minutes). */
export async function takeHeapSnapshot(ctx: BenchContext, dir: string): Promise<string> {
  const pid = readPid(pidFile(ctx, "watcher"));
  if (!pid) throw new Error("no watcher pid");
  const before = new Set(snapshots(dir));
  process.kill(pid, "SIGUSR2");
  for (let waited = 0; waited < 300_000; waited += 1000) {
    await new Promise(r => setTimeout(r, 1000));
    const fresh = snapshots(dir).find(f => !before.has(f));
    // Node writes the file in one go at the end: a JSON that parses is complete.
    if (fresh) {
      try {
        JSON.parse(readFileSync(join(dir, fresh), "utf8"));
        return join(dir, fresh);
      } catch {
        // still being written
      }
    }
  }
  throw new Error("the watcher wrote no heap snapshot within 5 minutes");
}

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: (string | string[])[] } };
  nodes: number[];
  strings: string[];
}

/** Self size of the live heap by node type and constructor, largest first (MB). */
export function summarizeHeap(
  file: string,
  top = 25,
): { total: number; rows: [string, number, number][] } {
  const s = JSON.parse(readFileSync(file, "utf8")) as Snapshot;
  const fields = s.snapshot.meta.node_fields;
  const types = s.snapshot.meta.node_types[0] as string[];
  const [iType, iName, iSize] = ["type", "name", "self_size"].map(f => fields.indexOf(f));
  const byKey = new Map<string, [number, number]>();
  let total = 0;
  for (let i = 0; i < s.nodes.length; i += fields.length) {
    const type = types[s.nodes[i + iType]];
    const name = type === "object" || type === "native" ? s.strings[s.nodes[i + iName]] : "";
    const key = `${type} ${name}`.trim();
    const size = s.nodes[i + iSize];
    total += size;
    const entry = byKey.get(key) ?? [0, 0];
    entry[0] += size;
    entry[1] += 1;
    byKey.set(key, entry);
  }
  const mb = (n: number) => Math.round((n / 1048576) * 10) / 10;
  const rows = [...byKey]
    .sort((a, b) => b[1][0] - a[1][0])
    .slice(0, top)
    .map(([k, [size, count]]) => [k, mb(size), count] as [string, number, number]);
  return { total: mb(total), rows };
}
