// Package files already read, by the tree they were read from: a tree id names its files exactly
// (content-addressed), so an entry never goes stale. An upgrade of N variants reads the same two
// upstream revisions for each of them; with this they are read from git once. One memo for the
// process, every repository and both clients, bounded in bytes; the least recently read entries
// are dropped over it (README “Security model”, Git content).
import { ByteLru } from "../byte-lru";
import { positiveSetting, type GitContentLimits } from "./content-limits";

export const PACKAGE_MEMO_SETTING = "PORCH_PEPR_GIT_PACKAGE_MEMO_BYTES";

/** 16 MiB: a few thousand packages of a few KiB, or sixteen at the per-package limit. */
export const DEFAULT_PACKAGE_MEMO_BYTES = 16 * 1024 * 1024;

/** What one file costs beyond its text: the key, the string headers, the map slot. */
const FILE_OVERHEAD = 96;

interface Entry {
  files: Readonly<Record<string, string>>;
  count: number;
  total: number;
  largest: number;
}

export class PackageMemo {
  private readonly entries: ByteLru<Entry>;

  constructor(readonly maxBytes: number) {
    this.entries = new ByteLru(maxBytes);
  }

  /** Bytes the entries hold now (their text and names, estimated). */
  get bytes(): number {
    return this.entries.bytes;
  }

  /**
   * A copy of the files read from `tree` of the repository `scope` (its cache folder: entries
   * of one tenant's repository never answer another's), or undefined when not kept or when they
   * break `limits` (tighter than when they were read: the read then says why).
   */
  get(scope: string, tree: string, limits: GitContentLimits): Record<string, string> | undefined {
    const entry = this.entries.get(`${scope}\n${tree}`);
    if (entry === undefined) return undefined;
    if (
      entry.count > limits.maxPackageFiles ||
      entry.total > limits.maxPackageBytes ||
      entry.largest > limits.maxFileBytes
    )
      return undefined;
    return { ...entry.files };
  }

  /** Keeps a copy of `files`, unless one package would take more than an eighth of the memo. */
  set(scope: string, tree: string, files: Record<string, string>): void {
    const key = `${scope}\n${tree}`;
    let bytes = key.length + FILE_OVERHEAD;
    let total = 0;
    let largest = 0;
    for (const [path, text] of Object.entries(files)) {
      const size = Buffer.byteLength(text, "utf8");
      bytes += FILE_OVERHEAD + path.length + size;
      total += size;
      largest = Math.max(largest, size);
    }
    const count = Object.keys(files).length;
    this.entries.set(key, { files: { ...files }, count, total, largest }, bytes);
  }
}

let processMemo: PackageMemo | undefined;

/** The process's memo, sized by PORCH_PEPR_GIT_PACKAGE_MEMO_BYTES when first used. */
export function processPackageMemo(): PackageMemo {
  processMemo ??= new PackageMemo(
    Math.floor(positiveSetting(process.env[PACKAGE_MEMO_SETTING], DEFAULT_PACKAGE_MEMO_BYTES)),
  );
  return processMemo;
}
