import { ApiError } from "../../../lib/cluster/errors";
import type { JsonPatchOperation } from "../../../lib/cluster/port";

/**
 * The document operations of the fake API server: copies, equality, RFC 6902 and RFC 7386
 * patches and the simplified server-side apply merge. Every function returns a new value and
 * leaves its arguments alone, so stored state is never shared with a caller.
 */

export type JsonObject = Record<string, unknown>;

/** A copy as the wire carries it: nothing shared, no `undefined` fields, Dates as strings. */
export const clone = <T>(value: T): T =>
  value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);

export const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const has = (obj: JsonObject, key: string) => Object.prototype.hasOwnProperty.call(obj, key);

/** Sets an own property even for keys such as `__proto__`, which plain assignment would not. */
function put(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a))
    return Array.isArray(b) && a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (!isObject(a) || !isObject(b)) return false;
  const keys = Object.keys(a);
  return (
    keys.length === Object.keys(b).length && keys.every(k => has(b, k) && deepEqual(a[k], b[k]))
  );
}

// The API server answers a patch it cannot apply with 422 and a malformed one with 400.
const invalid = (message: string) => new ApiError(422, "Invalid", message);
const badRequest = (message: string) => new ApiError(400, "BadRequest", message);

/** RFC 6901: `~1` is `/` and `~0` is `~`, decoded in that order so `~01` stays `~1`. */
export function parsePointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw badRequest(`JSON pointer ${JSON.stringify(path)} lacks "/"`);
  return path
    .slice(1)
    .split("/")
    .map(token => token.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function child(container: unknown, token: string): unknown {
  if (Array.isArray(container))
    return /^(0|[1-9][0-9]*)$/.test(token) ? container[Number(token)] : undefined;
  return isObject(container) && has(container, token) ? container[token] : undefined;
}

const resolve = (root: unknown, tokens: string[]): unknown =>
  tokens.reduce<unknown>((node, token) => child(node, token), root);

function applyOperation(root: unknown, op: JsonPatchOperation): unknown {
  if (!["add", "replace", "remove", "test"].includes(op.op))
    throw badRequest(`unsupported JSON patch operation ${JSON.stringify(op.op)}`);
  const tokens = parsePointer(op.path);
  if (op.op === "test") {
    const actual = resolve(root, tokens);
    if (actual === undefined || !deepEqual(actual, op.value))
      throw invalid(`the test operation at ${op.path} failed`);
    return root;
  }
  if (tokens.length === 0) {
    if (op.op === "remove") throw invalid("cannot remove the whole document");
    return clone(op.value);
  }
  const parent = resolve(root, tokens.slice(0, -1));
  const last = tokens[tokens.length - 1];
  if (Array.isArray(parent)) {
    const append = op.op === "add" && last === "-";
    if (!append && !/^(0|[1-9][0-9]*)$/.test(last)) throw invalid(`bad array index in ${op.path}`);
    const index = append ? parent.length : Number(last);
    if (index > (op.op === "add" ? parent.length : parent.length - 1))
      throw invalid(`index out of range in ${op.path}`);
    if (op.op === "add") parent.splice(index, 0, clone(op.value));
    else if (op.op === "replace") parent[index] = clone(op.value);
    else parent.splice(index, 1);
  } else if (isObject(parent)) {
    if (op.op !== "add" && !has(parent, last)) throw invalid(`no value at ${op.path}`);
    if (op.op === "remove") delete parent[last];
    else put(parent, last, clone(op.value));
  } else {
    throw invalid(`no object or array holds ${op.path}`);
  }
  return root;
}

/** RFC 6902, all or nothing: a failing operation leaves no trace. */
export const applyJsonPatch = (doc: unknown, ops: JsonPatchOperation[]): unknown =>
  ops.reduce<unknown>((root, op) => applyOperation(root, op), clone(doc));

/** RFC 7386: objects merged key by key, `null` deletes, anything else replaces. */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const result: JsonObject = isObject(target) ? clone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else put(result, key, applyMergePatch(has(result, key) ? result[key] : undefined, value));
  }
  return result;
}

/**
 * Lists the schemas declare as maps (x-kubernetes-list-type: map), by field name: apply merges
 * them item by item on the key. `conditions` as our PackageRevision CRD declares them,
 * `ownerReferences` as ObjectMeta does.
 */
const KEYED_LISTS: Record<string, string> = { conditions: "type", ownerReferences: "uid" };

function mergeKeyedList(target: unknown[], applied: unknown[], key: string): unknown[] {
  const keyOf = (item: unknown) => (isObject(item) ? item[key] : undefined);
  const result = target.map(item => clone(item));
  for (const item of applied) {
    const at = result.findIndex(held => keyOf(held) !== undefined && keyOf(held) === keyOf(item));
    if (at >= 0) result[at] = applyFields(result[at], item);
    else result.push(clone(item));
  }
  return result;
}

/**
 * Server-side apply, simplified: objects merged key by key, keyed lists (KEYED_LISTS) merged
 * item by item, other lists and scalars replaced, `null` drops the field. Real apply also
 * removes fields (and list items) this manager applied before and omits now; this does not.
 */
export function applyFields(target: unknown, applied: unknown): unknown {
  if (!isObject(applied) || !isObject(target)) return clone(applied);
  const result = clone(target);
  for (const [key, value] of Object.entries(applied)) {
    const held = has(result, key) ? result[key] : undefined;
    if (value === null) delete result[key];
    else if (KEYED_LISTS[key] && Array.isArray(value) && Array.isArray(held))
      put(result, key, mergeKeyedList(held, value, KEYED_LISTS[key]));
    else put(result, key, applyFields(held, value));
  }
  return result;
}

const APPLIED_METADATA = ["labels", "annotations", "ownerReferences", "finalizers"];

/**
 * What an apply request writes: .status alone, or everything else but apiVersion, kind and the
 * metadata the server owns. Undefined fields are dropped: what the request omits stays.
 */
export function appliedFields(obj: JsonObject, status: boolean): JsonObject {
  if (status) return clone({ status: obj.status });
  const meta = isObject(obj.metadata) ? obj.metadata : {};
  return clone({
    ...obj,
    apiVersion: undefined,
    kind: undefined,
    metadata: Object.fromEntries(APPLIED_METADATA.map(key => [key, meta[key]])),
  });
}

/** The value at a dotted path (`spec.repository`), or undefined. */
export const valueAt = (obj: unknown, dotted: string): unknown =>
  dotted.split(".").reduce<unknown>((node, key) => child(node, key), obj);
