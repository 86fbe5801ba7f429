// Shared pieces of the 3-way merge: options, tree positions and conflict reporting.
import { plain, sameNode, type YNode } from "../krm/nodes";
import type { ListKeyResolver } from "./merge-keys";
import type { ConflictReason } from "./types";

export interface FieldConflict {
  reason: ConflictReason;
  /** Display path, e.g. `spec.template.spec.containers[name=app].image`. */
  field: string;
  localValue?: unknown;
  upstreamValue?: unknown;
  resolution: "local" | "upstream";
}

export interface Merge3Options {
  listKeys: ListKeyResolver;
  onConflict: (conflict: FieldConflict) => void;
}

/** Position in the tree: schema path (map keys only) and display path. */
export interface Where {
  fields: readonly string[];
  display: string;
}

export const ROOT: Where = { fields: [], display: "" };

/** The position of a nested field, e.g. `whereAt(["metadata", "labels"])`. */
export function whereAt(fields: readonly string[]): Where {
  return fields.reduce(child, ROOT);
}

/** The position of field `key` below `where`. */
export function child(where: Where, key: string): Where {
  const segment = /^[A-Za-z0-9_$-]+$/.test(key) ? key : `[${JSON.stringify(key)}]`;
  const display = !where.display
    ? segment
    : segment.startsWith("[")
      ? where.display + segment
      : `${where.display}.${segment}`;
  return { fields: [...where.fields, key], display };
}

/** Reports a conflict when local and upstream both changed the value, differently. */
export function reportIfBothChanged(
  dest: YNode,
  origin: YNode,
  updated: YNode,
  resolution: "local" | "upstream",
  reason: ConflictReason,
  options: Merge3Options,
  where: Where,
): void {
  if (sameNode(dest, origin) || sameNode(updated, origin) || sameNode(dest, updated)) return;
  options.onConflict({
    reason: resolution === "local" && reason === "AtomicListReplaced" ? "BothModified" : reason,
    field: where.display,
    localValue: plain(dest),
    upstreamValue: plain(updated),
    resolution,
  });
}

export function report(
  options: Merge3Options,
  where: Where,
  reason: ConflictReason,
  local: YNode,
  upstream: YNode,
  resolution: "local" | "upstream",
): void {
  options.onConflict({
    reason,
    field: where.display,
    localValue: plain(local),
    upstreamValue: plain(upstream),
    resolution,
  });
}
