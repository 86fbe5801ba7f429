// The mutations of a valid object, each one kind of hostile input. A mutation changes the
// object in place and returns the field path it changed, or undefined when the object has no
// field it applies to (the case then picks another).
import {
  BAD_REGEXES,
  CEL_TYPE_WRONG,
  CEL_UNPARSABLE,
  celExpensive,
  HOSTILE_NAMES,
  HOSTILE_URLS,
  HUGE_LENGTHS,
  TYPED_VALUES,
  typeOf,
  UNICODE,
  WRONG_ENUMS,
} from "./hostile";
import {
  celPaths,
  fieldPath,
  getAt,
  mapKeyPaths,
  nodePaths,
  parseDotted,
  renameKey,
  setAt,
  stringPaths,
  type Path,
} from "./json-paths";
import type { Rng } from "../prng";
import { ENUM_FIELDS, type FuzzKind, type Json, type JsonObject } from "./seeds";

export const MUTATION_KINDS = [
  "wrongType",
  "hugeString",
  "deepNesting",
  "unicode",
  "enumWrong",
  "celUnparsable",
  "celTypeWrong",
  "celExpensive",
  "badRegex",
  "hostileName",
  "hostilePath",
  "hostileUrl",
] as const;

export type MutationKind = (typeof MUTATION_KINDS)[number];

type Mutation = (rng: Rng, obj: JsonObject, kind: FuzzKind) => string | undefined;

/**
 * Replaces the node at a random path of `paths` with a copy of `value(path)`: values come from
 * shared pools (hostile.ts), and a later mutation of the same case may write into what this one
 * put there, which would change the pool for every case after it or nest a value into itself.
 */
function replace(rng: Rng, obj: JsonObject, paths: Path[], value: (p: Path) => Json) {
  if (paths.length === 0) return undefined;
  const path = rng.pick(paths);
  setAt(obj, path, structuredClone(value(path)));
  return fieldPath(path);
}

function hugeString(rng: Rng, cel: boolean): string {
  const n = rng.pick(HUGE_LENGTHS);
  if (!cel) return rng.pick(["x", "a-", "😀", "\\"]).repeat(n).slice(0, n);
  // Long but valid (a literal), or long and deep (a chain the parser and checker recurse on).
  return rng.chance(0.5)
    ? `'${"a".repeat(n)}'`
    : Array(Math.ceil(n / 4))
        .fill("'a'")
        .join("+");
}

function nested(rng: Rng, depth: number): Json {
  let value: Json = rng.pick(["x", 1, null]);
  for (let i = 0; i < depth; i++) value = rng.chance(0.5) ? [value] : { a: value };
  return value;
}

function nestedCel(rng: Rng, depth: number): string {
  const [open, close, core] = rng.pick([
    ["(", ")", "'x'"],
    ["[", "]", "'x'"],
    ["!", "", "true"],
    ["-", "", "1"],
    ["{'k': ", "}", "'x'"],
    ["size(", ")", "'x'"],
  ]);
  return `${open.repeat(depth)}${core}${close.repeat(depth)}`;
}

/** Puts `text` into a string at a random place (or replaces it). */
function spliceInto(rng: Rng, s: string, text: string): string {
  const at = rng.int(0, s.length);
  return rng.chance(0.2) ? text : s.slice(0, at) + text + s.slice(at);
}

const NAME_KEYS = ["name", "package", "packageName", "workspaceName", "repository", "repo"];
const PATH_KEYS = ["package", "packageNames", "directory", "subpackage", "resources", "removeKeys"];
const URL_KEYS = ["repo", "image", "site", "exec", "git"];

const KPTFILE: Path = ["spec", "resources", "Kptfile"];
const KPTFILE_HEAD = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: web\n";

const lastKey = (p: Path) => [...p].reverse().find(k => typeof k === "string") ?? "";

/**
 * Where a type may change: under spec. The API server decodes metadata into its Go type before
 * any admission, and says so in Go's words ("cannot unmarshal array into Go struct field
 * ObjectMeta.name"): that decoder is not what this fuzzes, and its wording is not ours to fix.
 */
const typedPaths = (obj: JsonObject) => nodePaths(obj).filter(p => p[0] === "spec");

export const MUTATIONS: Record<MutationKind, Mutation> = {
  wrongType: (rng, obj) =>
    replace(rng, obj, typedPaths(obj), p => {
      const was = typeOf(getAt(obj, p));
      return rng.pick(TYPED_VALUES.filter(v => typeOf(v) !== was));
    }),
  hugeString: (rng, obj) => {
    const cel = celPaths(obj);
    const pick = cel.length > 0 && rng.chance(0.5) ? cel : stringPaths(obj);
    return replace(rng, obj, pick, () => hugeString(rng, pick === cel));
  },
  deepNesting: (rng, obj) => {
    const depth = rng.pick([10, 100, 1000]);
    const cel = celPaths(obj);
    if (cel.length > 0 && rng.chance(0.5))
      return replace(rng, obj, cel, () => nestedCel(rng, rng.pick([10, 100, 1000, 10_000])));
    return replace(rng, obj, typedPaths(obj), () => nested(rng, depth));
  },
  unicode: (rng, obj) => {
    const text = Array.from({ length: rng.int(1, 3) }, () => rng.pick(UNICODE)).join("");
    const keys = mapKeyPaths(obj);
    if (keys.length > 0 && rng.chance(0.3)) {
      const path = rng.pick(keys);
      const renamed = spliceInto(rng, String(path[path.length - 1]), text);
      return renameKey(obj, path, renamed) ? fieldPath([...path.slice(0, -1), renamed]) : undefined;
    }
    return replace(rng, obj, stringPaths(obj), p => spliceInto(rng, String(getAt(obj, p)), text));
  },
  enumWrong: (rng, obj, kind) => {
    const fields = ENUM_FIELDS[kind].map(parseDotted);
    if (fields.length === 0) return undefined;
    // Half the cases get every enum of the kind wrong at once.
    const chosen = rng.chance(0.5) ? fields : [rng.pick(fields)];
    for (const path of chosen) setAt(obj, path, structuredClone(rng.pick(WRONG_ENUMS)));
    return chosen.map(fieldPath).join(",");
  },
  celUnparsable: (rng, obj) => replace(rng, obj, celPaths(obj), () => rng.pick(CEL_UNPARSABLE)),
  celTypeWrong: (rng, obj) => replace(rng, obj, celPaths(obj), () => rng.pick(CEL_TYPE_WRONG)),
  celExpensive: (rng, obj) => replace(rng, obj, celPaths(obj), () => celExpensive(rng)),
  badRegex: (rng, obj) =>
    replace(rng, obj, celPaths(obj), () => {
      const regex = rng.pick(BAD_REGEXES);
      return `repository.name.matches('${regex}') ? 'y' : 'n'`;
    }),
  hostileName: (rng, obj) => {
    const names = stringPaths(obj).filter(p => NAME_KEYS.includes(String(lastKey(p))));
    return replace(rng, obj, names, () => rng.pick(HOSTILE_NAMES));
  },
  hostilePath: (rng, obj) => {
    const files = stringPaths(obj).filter(p => p[p.length - 2] === "resources");
    if (files.length > 0 && rng.chance(0.6)) {
      const path = rng.pick(files);
      const name = rng.pick(HOSTILE_NAMES);
      return renameKey(obj, path, name) ? fieldPath([...path.slice(0, -1), name]) : undefined;
    }
    const paths = stringPaths(obj).filter(p => PATH_KEYS.includes(String(lastKey(p))));
    return replace(rng, obj, paths, () => rng.pick(HOSTILE_NAMES));
  },
  hostileUrl: (rng, obj) => {
    // A new revision's Kptfile may name an exec function or an image too.
    if (typeof getAt(obj, KPTFILE) === "string" && rng.chance(0.5)) {
      const field = rng.pick(["exec", "image"]);
      const value = JSON.stringify(rng.pick(HOSTILE_URLS));
      setAt(obj, KPTFILE, `${KPTFILE_HEAD}pipeline:\n  mutators:\n    - ${field}: ${value}\n`);
      return fieldPath(KPTFILE);
    }
    const urls = stringPaths(obj).filter(p => URL_KEYS.includes(String(lastKey(p))));
    return replace(rng, obj, urls, () => rng.pick(HOSTILE_URLS));
  },
};
