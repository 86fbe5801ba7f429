// Injection outcomes recorded in the Kptfile, where the reference writes them: status.conditions
// (one per injection point) and info.readinessGates (one per required point). The PackageRevision
// controller copies both to the PackageRevision after rendering.
import { isSeq, YAMLSeq, type YAMLMap } from "yaml";
import { KPTFILE_ORDER, type Kptfile } from "../kpt/kptfile";
import { ensureMap, getField, plain, sameValue, setField, toNode } from "../krm/nodes";

/** A kpt Kptfile condition (kpt's field order). */
export interface KptfileCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
}

function items(parent: unknown, key: string): unknown[] {
  const node = getField(parent, key);
  return isSeq(node) ? node.items : [];
}

function field(item: unknown, key: string): string {
  const value = (plain(item) as Record<string, unknown> | null)?.[key];
  return typeof value === "string" ? value : "";
}

/** Go's sort order (bytes), not the locale's. */
function byKey<T>(key: (t: T) => string): (a: T, b: T) => number {
  return (a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

function setList(map: YAMLMap, key: string, list: unknown[], order: readonly string[] = []): void {
  const current = getField(map, key);
  const seq = isSeq(current) ? current : new YAMLSeq();
  seq.items = list;
  setField(map, key, seq, order);
}

/**
 * Sets `conditions` in status.conditions (replacing those of the same type, keeping all others)
 * and adds `gates` to info.readinessGates (never removing any: other actors may add gates);
 * both lists end up sorted, as in the reference. Unchanged entries keep their nodes.
 */
export function setConditionsAndGates(
  kptfile: Kptfile,
  conditions: readonly KptfileCondition[],
  gates: readonly string[],
): void {
  const status = getField(kptfile.root, "status");
  const ours = new Map(conditions.map(c => [c.type, c]));
  const existing = items(status, "conditions");
  const kept = existing.filter(item => !ours.has(field(item, "type")));
  const updated = conditions.map(c => {
    const old = existing.find(item => field(item, "type") === c.type);
    return old !== undefined && sameValue(plain(old), c) ? old : toNode({ ...c });
  });
  if (updated.length > 0) {
    const all = [...kept, ...updated].sort(byKey(item => field(item, "type")));
    setList(ensureMap(kptfile.root, "status", KPTFILE_ORDER), "conditions", all);
  }

  const known = new Set<string>();
  const gateItems = items(getField(kptfile.root, "info"), "readinessGates").filter(item => {
    const type = field(item, "conditionType");
    const first = !known.has(type);
    known.add(type);
    return first;
  });
  const added = [...new Set(gates)].filter(gate => !known.has(gate));
  if (gateItems.length + added.length === 0) return;
  const all = [...gateItems, ...added.map(conditionType => toNode({ conditionType }))].sort(
    byKey(item => field(item, "conditionType")),
  );
  setList(ensureMap(kptfile.root, "info", KPTFILE_ORDER), "readinessGates", all);
}
