// Just enough Kptfile reading for the store: is it a Kptfile at all, and its upstreamLock.
import { parseDocument } from "yaml";
import type { UpstreamLock } from "./types";

export const KPTFILE = "Kptfile";

export type KptfileRead = { ok: true; upstreamLock?: UpstreamLock } | { ok: false; error: string };

export function readKptfile(text: string): KptfileRead {
  const doc = parseDocument(text, { prettyErrors: false });
  if (doc.errors.length > 0)
    return { ok: false, error: `Kptfile does not parse: ${doc.errors[0].message}` };
  const value: unknown = doc.toJS();
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return { ok: false, error: "Kptfile is not a YAML mapping" };
  }
  const obj = value as Record<string, unknown>;
  if (obj.kind !== "Kptfile")
    return {
      ok: false,
      error: `Kptfile has kind ${JSON.stringify(obj.kind ?? null)}, expected "Kptfile"`,
    };
  return { ok: true, upstreamLock: toUpstreamLock(obj.upstreamLock) };
}

function toUpstreamLock(value: unknown): UpstreamLock | undefined {
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
