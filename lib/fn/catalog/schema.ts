// A small JSON Schema (2020-12) interpreter for the function catalog: the loader checks a catalog
// against lib/fn/catalog/catalog.schema.json itself, so the published schema and the operator's
// validation are one text. Only the keywords that file uses are implemented; any other keyword
// throws when the schema is compiled, so the two cannot drift apart silently. Two extensions:
// `format` names a checker the caller supplies, and `errorMessage` replaces a failing
// subschema's problems with one message.
import { printableName } from "../../packages/file-names";

export type Schema = { readonly [keyword: string]: unknown };

/** Checks a string of a named syntax: a problem, or undefined when the value is good. */
export type FormatChecker = (value: string) => string | undefined;

const ANNOTATIONS = ["$schema", "$id", "$comment", "title", "description", "default", "examples"];
const KEYWORDS = new Set([
  ...ANNOTATIONS,
  "$defs",
  "$ref",
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "enum",
  "const",
  "minLength",
  "maxLength",
  "minItems",
  "maxItems",
  "minimum",
  "maximum",
  "format",
  "allOf",
  "anyOf",
  "not",
  "if",
  "then",
  "else",
  "errorMessage",
]);

const SUBSCHEMA = ["items", "not", "if", "then", "else"];
const SUBSCHEMA_LISTS = ["allOf", "anyOf"];
const SUBSCHEMA_MAPS = ["properties", "$defs"];

/** Throws when the schema uses a keyword, `$ref` or format this interpreter does not know. */
function checkSupported(schema: Schema, formats: Record<string, FormatChecker>, at: string): void {
  for (const [keyword, value] of Object.entries(schema)) {
    const where = `${at}/${keyword}`;
    if (!KEYWORDS.has(keyword)) throw new Error(`schema keyword ${where} is not supported`);
    if (keyword === "additionalProperties" && value !== false)
      throw new Error(`schema ${where}: only false is supported`);
    if (keyword === "$ref" && !/^#\/\$defs\/[A-Za-z]+$/.test(String(value)))
      throw new Error(`schema ${where}: only #/$defs/<name> is supported`);
    if (keyword === "format" && !(String(value) in formats))
      throw new Error(`schema ${where}: no checker for format ${String(value)}`);
    if (SUBSCHEMA.includes(keyword)) checkSupported(value as Schema, formats, where);
    if (SUBSCHEMA_LISTS.includes(keyword))
      (value as Schema[]).forEach((s, i) => checkSupported(s, formats, `${where}/${i}`));
    if (SUBSCHEMA_MAPS.includes(keyword))
      for (const [name, s] of Object.entries(value as Record<string, Schema>))
        checkSupported(s, formats, `${where}/${name}`);
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const TYPE_CHECKS: Record<string, [(v: unknown) => boolean, string]> = {
  object: [isObject, "must be a mapping"],
  array: [Array.isArray, "must be a list"],
  string: [v => typeof v === "string", "must be a string"],
  integer: [v => Number.isInteger(v), "must be an integer"],
  number: [v => typeof v === "number" && Number.isFinite(v), "must be a number"],
  boolean: [v => typeof v === "boolean", "must be true or false"],
};

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

export const childPath = (path: string, key: string): string => {
  if (!PLAIN_KEY.test(key)) return `${path}[${printableName(key)}]`;
  return path === "" ? key : `${path}.${key}`;
};

/** Code points, as JSON Schema counts string lengths. */
const lengthOf = (s: string): number => [...s].length;

export interface Validator {
  /** Every problem of `value`, each as `path: message` (`root` names the top). */
  validate(value: unknown, root: string): string[];
}

/** Compiles `schema` against the format checkers it names; throws if the schema is unsupported. */
export function compileSchema(schema: Schema, formats: Record<string, FormatChecker>): Validator {
  checkSupported(schema, formats, "#");
  const defs = (schema.$defs ?? {}) as Record<string, Schema>;

  function check(s: Schema, value: unknown, path: string, problems: string[]): void {
    const found: string[] = [];
    keywords(s, value, path, found);
    if (found.length > 0 && typeof s.errorMessage === "string") {
      problems.push(`${path}: ${s.errorMessage}`);
    } else {
      problems.push(...found);
    }
  }

  const passes = (s: Schema, value: unknown, path: string): boolean => {
    const found: string[] = [];
    check(s, value, path, found);
    return found.length === 0;
  };

  function keywords(s: Schema, value: unknown, path: string, problems: string[]): void {
    const at = (message: string): void => void problems.push(`${path}: ${message}`);
    if (typeof s.$ref === "string")
      check(defs[s.$ref.slice("#/$defs/".length)], value, path, problems);
    if (typeof s.type === "string") {
      const [ok, message] = TYPE_CHECKS[s.type];
      if (!ok(value)) return at(message);
    }
    if (Array.isArray(s.enum) && !s.enum.includes(value))
      return at(`must be one of ${s.enum.join(", ")}`);
    if ("const" in s && value !== s.const) return at(`must be ${JSON.stringify(s.const)}`);
    if (typeof value === "string") strings(s, value, at);
    if (typeof value === "number") numbers(s, value, at);
    if (Array.isArray(value) && arrays(s, value, at)) {
      const items = s.items as Schema | undefined;
      if (items) value.forEach((item, i) => check(items, item, `${path}[${i}]`, problems));
    }
    if (isObject(value)) objects(s, value, path, problems);
    for (const sub of (s.allOf ?? []) as Schema[]) check(sub, value, path, problems);
    if (Array.isArray(s.anyOf) && !(s.anyOf as Schema[]).some(sub => passes(sub, value, path)))
      at("matches none of the alternatives");
    if (s.not && passes(s.not as Schema, value, path)) at("matches what it must not");
    if (s.if) {
      const branch = passes(s.if as Schema, value, path) ? s.then : s.else;
      if (branch) check(branch as Schema, value, path, problems);
    }
  }

  function strings(s: Schema, value: string, at: (m: string) => void): void {
    if (
      typeof s.maxLength === "number" &&
      value.length > s.maxLength &&
      lengthOf(value) > s.maxLength
    )
      return at(`must be at most ${s.maxLength} characters`);
    if (typeof s.minLength === "number" && lengthOf(value) < s.minLength)
      return at(
        s.minLength === 1 ? "must not be empty" : `must be at least ${s.minLength} characters`,
      );
    if (typeof s.format === "string") {
      const problem = formats[s.format](value);
      if (problem) at(problem);
    }
  }

  function numbers(s: Schema, value: number, at: (m: string) => void): void {
    const min = s.minimum as number | undefined;
    const max = s.maximum as number | undefined;
    if ((min !== undefined && value < min) || (max !== undefined && value > max))
      at(
        min !== undefined && max !== undefined
          ? `must be from ${min} to ${max}`
          : min !== undefined
            ? `must be at least ${min}`
            : `must be at most ${max}`,
      );
  }

  /** Whether the items should be checked: a list over its bound is reported, not walked. */
  function arrays(s: Schema, value: unknown[], at: (m: string) => void): boolean {
    if (typeof s.maxItems === "number" && value.length > s.maxItems) {
      at(`must have at most ${s.maxItems} entries`);
      return false;
    }
    if (typeof s.minItems === "number" && value.length < s.minItems)
      at(`must have at least ${s.minItems} ${s.minItems === 1 ? "entry" : "entries"}`);
    return true;
  }

  function objects(
    s: Schema,
    value: Record<string, unknown>,
    path: string,
    problems: string[],
  ): void {
    const properties = (s.properties ?? {}) as Record<string, Schema>;
    for (const key of (s.required ?? []) as string[])
      if (!(key in value)) problems.push(`${childPath(path, key)}: is required`);
    for (const [key, item] of Object.entries(value)) {
      if (Object.hasOwn(properties, key))
        check(properties[key], item, childPath(path, key), problems);
      else if (s.additionalProperties === false)
        problems.push(
          `${childPath(path, key)}: is not a field here (fields: ${Object.keys(properties).join(", ")})`,
        );
    }
  }

  return {
    validate(value, root) {
      const problems: string[] = [];
      check(schema, value, "", problems);
      // Top-level problems, and top-level keys that are not plain words, name the root.
      return problems.map(p => (p.startsWith(": ") || p.startsWith("[") ? `${root}${p}` : p));
    },
  };
}
