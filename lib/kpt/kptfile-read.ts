// The git store's view of the one Kptfile parse: is it a Kptfile at all, and its upstreamLock.
// It never throws: a package with a broken Kptfile is still listed, with the reason.
import { KptfileError, parseKptfile, type Kptfile } from "./kptfile";
import type { UpstreamLock } from "./types";

export type KptfileRead = { ok: true; upstreamLock?: UpstreamLock } | { ok: false; error: string };

/** Reads a package's root Kptfile; the kind must be Kptfile. */
export function readKptfile(text: string): KptfileRead {
  try {
    return {
      ok: true,
      upstreamLock: upstreamLockOf(parseKptfile(text, undefined, { requireKind: true })),
    };
  } catch (error) {
    if (error instanceof KptfileError) return { ok: false, error: error.message };
    throw error;
  }
}

/** `upstreamLock` as written; fields that are not text are given in their string form. */
export function upstreamLockOf(kptfile: Kptfile): UpstreamLock | undefined {
  const value = (kptfile.doc.toJS() as Record<string, unknown>).upstreamLock;
  if (value === null || typeof value !== "object") return undefined;
  const lock = value as Record<string, unknown>;
  const git = lock.git as Record<string, unknown> | undefined;
  const text = (v: unknown) =>
    typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
  return {
    type: text(lock.type),
    ...(git && typeof git === "object"
      ? {
          git: {
            repo: text(git.repo),
            directory: text(git.directory),
            ref: text(git.ref),
            commit: text(git.commit),
          },
        }
      : {}),
  };
}
