// The string syntaxes the catalog schema names with `format`, each a checker that says what is
// wrong in the administrator's terms.
import { printableName } from "../../packages/file-names";
import { isDns1123Label, isDns1123Subdomain } from "../../validation/kubernetes-names";
import { parseImagePattern } from "./image-pattern";
import { parseImageReference } from "./image-reference";
import type { FormatChecker } from "./schema";

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const UNSAFE_PATH_CHARACTER = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\s\\]/u;
const QUANTITY = /^[0-9]{1,15}(?:\.[0-9]{1,9})?(?:m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/;

const MEMORY = /^([0-9]{1,12})(Ki|Mi|Gi|k|M|G)?$/;
const MEMORY_UNIT: Record<string, number> = {
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  Ki: 1024,
  Mi: 1024 ** 2,
  Gi: 1024 ** 3,
};
/** A worker loads the built-ins (about 10 MiB of heap) before it runs one. */
export const MIN_HEAP_MIB = 32;
export const MAX_HEAP_MIB = 4096;

/** A memory quantity (`256Mi`, `1Gi`, `300M`) in whole MiB, rounded down; undefined when not one. */
export function parseMemoryMiB(text: string): number | undefined {
  const match = MEMORY.exec(text);
  if (!match) return undefined;
  return Math.floor((Number(match[1]) * MEMORY_UNIT[match[2] ?? ""]) / 1024 ** 2);
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
export const MAX_DURATION_MS = 24 * 3_600_000;

/** `30s`, `1m30s`, `250ms` → milliseconds; undefined when not such a duration. */
export function parseDuration(text: string): number | undefined {
  if (text === "") return undefined;
  const part = /([0-9]{1,9})(ms|s|m|h)/y; // a fresh sticky expression: it carries its position
  let total = 0;
  while (part.lastIndex < text.length) {
    const match = part.exec(text);
    if (!match) return undefined;
    total += Number(match[1]) * UNIT_MS[match[2]];
  }
  return total;
}

/** An absolute path with no `.`, `..` or empty segments, control characters, spaces or backslashes. */
export function absolutePathProblem(path: string): string | undefined {
  if (!path.startsWith("/")) return `${printableName(path)} is not an absolute path`;
  if (UNSAFE_PATH_CHARACTER.test(path))
    return `${printableName(path)} contains a space, a control character or a backslash`;
  const segments = path.slice(1).split("/");
  if (segments.some(s => s === "" || s === "." || s === ".."))
    return `${printableName(path)} is not a normalized path`;
  return undefined;
}

/**
 * What a Kptfile's `exec:` may be for the catalog to match it: a name or an absolute path, never
 * with arguments (a tenant's arguments would make the administrator's executable another command).
 */
export function execNameProblem(exec: string): string | undefined {
  if (exec.startsWith("/")) return absolutePathProblem(exec);
  return NAME.test(exec)
    ? undefined
    : `${printableName(exec)} must be a name (letters, digits, '.', '_' or '-') or an absolute path`;
}

/** The checkers of lib/fn/catalog/catalog.schema.json's formats; built-ins by the names given. */
export function catalogFormats(builtinNames: readonly string[]): Record<string, FormatChecker> {
  return {
    "image-pattern": text => {
      const pattern = parseImagePattern(text);
      return "problem" in pattern ? pattern.problem : undefined;
    },
    "image-reference": text => {
      const ref = parseImageReference(text);
      if ("problem" in ref) return `is not an image reference: ${ref.problem}`;
      return ref.tag === undefined && ref.digest === undefined
        ? "needs a tag or a digest: the image every function Pod starts from should not move"
        : undefined;
    },
    "exec-name": execNameProblem,
    "absolute-path": absolutePathProblem,
    "builtin-name": name =>
      builtinNames.includes(name)
        ? undefined
        : `there is no built-in function ${printableName(name)} (built-ins: ${builtinNames.join(", ")})`,
    duration: text => {
      const ms = parseDuration(text);
      return ms !== undefined && ms >= 1 && ms <= MAX_DURATION_MS ? undefined : "bad duration";
    },
    quantity: text => (QUANTITY.test(text) ? undefined : "bad quantity"),
    "heap-size": text => {
      const mib = parseMemoryMiB(text);
      return mib !== undefined && mib >= MIN_HEAP_MIB && mib <= MAX_HEAP_MIB
        ? undefined
        : `must be a memory quantity from ${MIN_HEAP_MIB}Mi to ${MAX_HEAP_MIB / 1024}Gi, like 256Mi`;
    },
    "dns-label": text =>
      isDns1123Label(text) ? undefined : "must be a lowercase RFC 1123 label (a-z, 0-9 and '-')",
    "dns-subdomain": text =>
      isDns1123Subdomain(text)
        ? undefined
        : "must be a lowercase RFC 1123 subdomain (a-z, 0-9, '-' and '.')",
  };
}
