import { ApiError } from "../../../lib/cluster/errors";
import { valueAt } from "./patch";

/** Label and field selectors as the API server reads the `labelSelector`/`fieldSelector` query. */

type Operator = "=" | "!=" | "in" | "notin" | "exists" | "!exists";

interface Requirement {
  key: string;
  operator: Operator;
  values: string[];
}

const badRequest = (message: string) => new ApiError(400, "BadRequest", message);

const KEY = String.raw`[A-Za-z0-9](?:[-A-Za-z0-9_./]*[A-Za-z0-9])?`;
const VALUE = String.raw`(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?`;
const EXISTS = new RegExp(`^(!?)\\s*(${KEY})$`);
const EQUALITY = new RegExp(`^(${KEY})\\s*(==|=|!=)\\s*(${VALUE})$`);
const SET = new RegExp(`^(${KEY})\\s+(in|notin)\\s*\\(([^()]*)\\)$`);

/** Splits on the commas between terms, not those inside `in (a,b)`. */
function terms(selector: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < selector.length; i++) {
    if (selector[i] === "(") depth++;
    else if (selector[i] === ")") depth--;
    else if (selector[i] === "," && depth === 0) {
      out.push(selector.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(selector.slice(start).trim());
  return out;
}

function parseTerm(term: string): Requirement {
  const equality = EQUALITY.exec(term);
  if (equality) {
    const [, key, op, value] = equality;
    return { key, operator: op === "!=" ? "!=" : "=", values: [value] };
  }
  const set = SET.exec(term);
  if (set) {
    const values = set[3].split(",").map(v => v.trim());
    if (values.some(v => !new RegExp(`^${VALUE}$`).test(v)))
      throw badRequest(`unable to parse requirement: ${JSON.stringify(term)}`);
    return { key: set[1], operator: set[2] as "in" | "notin", values };
  }
  const exists = EXISTS.exec(term);
  if (exists) return { key: exists[2], operator: exists[1] ? "!exists" : "exists", values: [] };
  throw badRequest(`unable to parse requirement: ${JSON.stringify(term)}`);
}

/** A label selector map ("" meaning "has the key", as the port says) or string. */
export function parseLabelSelector(selector: Record<string, string> | string = ""): Requirement[] {
  if (typeof selector !== "string")
    return Object.entries(selector).map(([key, value]) =>
      value === "" ? parseTerm(key) : parseTerm(`${key}=${value}`),
    );
  return selector.trim() === "" ? [] : terms(selector).map(parseTerm);
}

export function matchesLabels(
  labels: Record<string, string> | undefined,
  requirements: Requirement[],
): boolean {
  const l = labels ?? {};
  return requirements.every(({ key, operator, values }) => {
    const present = Object.prototype.hasOwnProperty.call(l, key);
    switch (operator) {
      case "=":
        return present && l[key] === values[0];
      case "!=":
        return !present || l[key] !== values[0];
      case "in":
        return present && values.includes(l[key]);
      case "notin":
        return !present || !values.includes(l[key]);
      case "exists":
        return present;
      case "!exists":
        return !present;
    }
  });
}

interface FieldRequirement {
  path: string;
  equal: boolean;
  value: string;
}

/**
 * A field selector: equalities on the fields the kind makes selectable (an unsupported one is
 * a 400, as from the API server). A map with an empty value becomes a bare key on the wire,
 * which the API refuses, so it is refused here too.
 */
export function parseFieldSelector(
  selector: Record<string, string> | string = "",
  selectable: (path: string) => boolean,
): FieldRequirement[] {
  const raw =
    typeof selector === "string"
      ? selector.trim() === ""
        ? []
        : terms(selector)
      : Object.entries(selector).map(([k, v]) => (v === "" ? k : `${k}=${v}`));
  return raw.map(term => {
    const match = /^([^=!\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
    if (!match) throw badRequest(`invalid field selector: ${JSON.stringify(term)}`);
    const [, path, op, value] = match;
    if (!selectable(path)) throw badRequest(`field label not supported: ${path}`);
    return { path, equal: op !== "!=", value };
  });
}

/** A missing field reads as "", as the API server's field sets do. */
export function matchesFields(obj: unknown, requirements: FieldRequirement[]): boolean {
  return requirements.every(({ path, equal, value }) => {
    const found = valueAt(obj, path);
    const text = found === undefined || found === null ? "" : String(found);
    return (text === value) === equal;
  });
}
