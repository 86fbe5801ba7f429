/**
 * What `upstream.revision` selects. The API accepts the reference's integer, the seed's `v1`
 * form, and `latest` (follow the newest published revision: the seed's floating tag).
 */
export type RevisionSelector =
  | { kind: "number"; revision: number }
  | { kind: "latest" }
  | { kind: "unset" }
  | { kind: "invalid"; value: unknown };

export function parseRevision(value: unknown): RevisionSelector {
  if (value === undefined || value === null || value === "") return { kind: "unset" };
  if (value === "latest") return { kind: "latest" };
  if (typeof value === "number") {
    return Number.isInteger(value) && value > 0
      ? { kind: "number", revision: value }
      : { kind: "invalid", value };
  }
  if (typeof value === "string") {
    const match = /^v?([1-9][0-9]{0,8})$/.exec(value);
    if (match) return { kind: "number", revision: Number(match[1]) };
  }
  return { kind: "invalid", value };
}

/** The tag-style name of a revision number, as in git (`<package>/v<N>`) and the seeds. */
export function formatRevision(selector: RevisionSelector): string {
  switch (selector.kind) {
    case "number":
      return `v${selector.revision}`;
    case "latest":
      return "latest";
    case "unset":
      return "";
    case "invalid":
      return String(selector.value);
  }
}
