/**
 * What `upstream.revision` selects. The API accepts the reference's integer, the `v1` form of
 * Porch's design examples, and `latest` (follow the newest published revision: the design's
 * floating tag). See docs/package-variants.md, “Upstream tracking”.
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

/** The tag-style name of a revision number, as in git (`<package>/v<N>`) and the examples. */
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
