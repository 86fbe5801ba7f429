// Resolving the deltas of a fetched pack as git's index-pack does: from each object that is no
// delta (and each base outside the pack a ref-delta names), depth first through the deltas based
// on it, each resolved once from its parent's bytes. Resolving each delta by walking down to its
// base instead cost a chain's whole length per delta when its base was not the last resolved
// (K²/4 applies for K deltas each based two back). Only the bytes of the path from the root are
// kept, and a parent's are dropped before its last child; when they pass HELD_BASES_BYTES the
// ones nearest the root are dropped and derived again if needed, and a pack whose deltas would
// cost more to derive again than to resolve once is refused, so the work stays linear.
import {
  type IndexWork,
  NONE,
  type PackEntries,
  REF_DELTA,
  TYPE_NAMES,
  UnindexablePack,
  inflateAt,
  objectId,
  sortByIds,
} from "./iso-pack-entries";

/** git's deepest delta chain is 4095 (pack.depth); past that, no git server made the pack. */
const MAX_DELTA_DEPTH = 4095;
/** Bases kept for their next children; past it the ones nearest the root are dropped. */
const HELD_BASES_BYTES = 32 * 1024 * 1024;

export interface IndexedObject {
  type: string;
  object: Buffer;
}

/** Objects outside the pack a ref-delta may name (isomorphic-git's fetch asks for no thin pack). */
export type ExternalBase = (oid: string) => Promise<IndexedObject | undefined>;

/** An object on the path from the walk's root, and the children it has left. */
interface Frame {
  /** Its entry; NONE for a base from outside the pack (which is never dropped). */
  index: number;
  depth: number;
  /** Undefined once dropped: after its last child, or to keep within HELD_BASES_BYTES. */
  bytes: Buffer | undefined;
  /** Its next ofs-delta child in `children`, and where they end. */
  ofs: number;
  ofsEnd: number;
  /** Its next ref-delta child in the walk's `refOrder`, and where they end. */
  ref: number;
  refEnd: number;
}

/** Resolves every delta of `entries`, filling in its id; refuses a pack with one it cannot. */
export async function resolveDeltas(
  pack: Buffer,
  entries: PackEntries,
  external: ExternalBase,
  yieldNow: () => Promise<void>,
  work: IndexWork,
): Promise<void> {
  await new DeltaWalk(pack, entries, external, yieldNow, work).run();
}

class DeltaWalk {
  /** Ref-deltas sorted by their base's id (then pack order), to find an object's children. */
  readonly #refOrder: Uint32Array;
  /** 1 at the start of each group of `refOrder` an object has taken as its children. */
  readonly #taken: Uint8Array;
  #stack: Frame[] = [];
  /** Frames below this one are not dropped to keep within the bound (they were already). */
  #low = 0;
  #held = 0;
  #typeName = "";
  /** Bytes resolved, and bytes derived again after being dropped (never more than those). */
  #once = 0;
  #again = 0;

  constructor(
    private readonly pack: Buffer,
    private readonly entries: PackEntries,
    private readonly external: ExternalBase,
    private readonly yieldNow: () => Promise<void>,
    private readonly work: IndexWork,
  ) {
    const refs: number[] = [];
    for (let i = 0; i < entries.count; i++) if (entries.types[i] === REF_DELTA) refs.push(i);
    this.#refOrder = sortByIds(Uint32Array.from(refs), entries.count, pack, i =>
      entries.refBase(i),
    );
    this.#taken = new Uint8Array(this.#refOrder.length + 1);
  }

  async run(): Promise<void> {
    const { entries, pack } = this;
    for (let i = 0; i < entries.count; i++) {
      if (entries.isDelta(i)) continue;
      const id = entries.ids.subarray(i * 20, i * 20 + 20);
      const root = this.#frame(i, id, 0, undefined);
      if (this.#pending(root) === NONE) continue;
      const size = entries.sizes[i];
      root.bytes = (await inflateAt(pack, entries.dataStart(i), size, this.work)).bytes;
      await this.#walk(root, TYPE_NAMES[entries.types[i]]);
    }
    // Ref-deltas whose base no object of the pack is: asked of the repository once per id.
    const order = this.#refOrder;
    for (let at = 0; at < order.length; ) {
      const id = pack.subarray(entries.refBase(order[at]), entries.refBase(order[at]) + 20);
      const [, end] = this.#refRange(id);
      const unresolved = order.subarray(at, end).some(i => entries.resolved[i] === 0);
      at = end;
      if (!unresolved) continue;
      const found = await this.external(id.toString("hex"));
      if (found === undefined) continue;
      if (!Object.values(TYPE_NAMES).includes(found.type))
        throw new UnindexablePack(`the base ${id.toString("hex")} is a ${found.type}`);
      await this.#walk(this.#frame(NONE, id, 0, found.object), found.type);
    }
    const left = entries.resolved.indexOf(0);
    if (left >= 0)
      throw new UnindexablePack(`the delta at offset ${entries.offsets[left]} has no base`);
  }

  /** Resolves the deltas under `root` (which holds its bytes), depth first. */
  async #walk(root: Frame, typeName: string): Promise<void> {
    const { entries, pack, work } = this;
    this.#typeName = typeName;
    this.#stack = [root];
    this.#low = 0;
    this.#held = root.bytes!.length;
    this.#once += root.bytes!.length;
    while (this.#stack.length > 0) {
      const top = this.#stack[this.#stack.length - 1];
      const child = this.#pending(top);
      if (child === NONE) {
        this.#drop(top);
        this.#stack.pop();
        this.#low = Math.min(this.#low, this.#stack.length);
        continue;
      }
      if (top.ofs < top.ofsEnd) top.ofs++;
      else top.ref++;
      const offset = entries.offsets[child];
      const depth = top.depth + 1;
      if (depth > MAX_DELTA_DEPTH)
        throw new UnindexablePack(`the delta at offset ${offset} is in a chain too deep`);
      const base = top.bytes ?? (await this.#derive());
      const { bytes } = await inflateAt(pack, entries.dataStart(child), entries.sizes[child], work);
      work.applies++;
      const object = applyDelta(bytes, base, offset);
      // Its last child: nothing needs its bytes again (a chain holds one object at a time).
      if (this.#pending(top) === NONE && top.index !== NONE) this.#drop(top);
      const id = entries.ids.subarray(child * 20, child * 20 + 20);
      await objectId(this.#typeName, object, this.yieldNow, entries.ids, child);
      entries.resolved[child] = 1;
      this.#once += object.length;
      const frame = this.#frame(child, id, depth, object);
      // A delta with no children of its own is done: its bytes are not kept.
      if (this.#pending(frame) !== NONE) {
        this.#stack.push(frame);
        this.#held += object.length;
        this.#evict();
      }
      await this.yieldNow();
    }
  }

  /** The bytes of the top frame, dropped to keep within the bound, derived again from below. */
  async #derive(): Promise<Buffer> {
    const { entries, pack, work } = this;
    const stack = this.#stack;
    const top = stack.length - 1;
    let from = top - 1;
    while (from >= 0 && stack[from].bytes === undefined) from--;
    let bytes: Buffer;
    if (from >= 0) bytes = stack[from].bytes!;
    else {
      // The root is an object of the pack (a base from outside it is never dropped).
      from = 0;
      const root = stack[0].index;
      bytes = (await inflateAt(pack, entries.dataStart(root), entries.sizes[root], work)).bytes;
      this.#count(bytes.length);
    }
    for (let level = from + 1; level <= top; level++) {
      const i = stack[level].index;
      const delta = await inflateAt(pack, entries.dataStart(i), entries.sizes[i], work);
      work.applies++;
      bytes = applyDelta(delta.bytes, bytes, entries.offsets[i]);
      this.#count(bytes.length);
      await this.yieldNow();
    }
    stack[top].bytes = bytes;
    this.#held += bytes.length;
    this.#low = Math.min(this.#low, top);
    this.#evict();
    return bytes;
  }

  #count(bytes: number): void {
    this.#again += bytes;
    if (this.#again > this.#once)
      throw new UnindexablePack(
        `its delta bases do not fit in ${HELD_BASES_BYTES} bytes and resolving them again ` +
          "would cost more than resolving them once",
      );
  }

  /** Drops the bytes held nearest the root (never the top's) until within the bound. */
  #evict(): void {
    const stack = this.#stack;
    for (; this.#held > HELD_BASES_BYTES && this.#low < stack.length - 1; this.#low++) {
      const frame = stack[this.#low];
      if (frame.index !== NONE) this.#drop(frame);
    }
  }

  #drop(frame: Frame): void {
    if (frame.bytes === undefined) return;
    this.#held -= frame.bytes.length;
    frame.bytes = undefined;
  }

  /** The next child of `frame` not resolved yet (its cursor left on it); NONE if none. */
  #pending(frame: Frame): number {
    const { children, resolved } = this.entries;
    for (; frame.ofs < frame.ofsEnd; frame.ofs++) {
      this.work.visits++;
      if (resolved[children[frame.ofs]] === 0) return children[frame.ofs];
    }
    for (; frame.ref < frame.refEnd; frame.ref++) {
      this.work.visits++;
      if (resolved[this.#refOrder[frame.ref]] === 0) return this.#refOrder[frame.ref];
    }
    return NONE;
  }

  #frame(index: number, id: Buffer, depth: number, bytes: Buffer | undefined): Frame {
    const { childStart } = this.entries;
    const [ref, end] = this.#refRange(id);
    // The first object with this id takes the ref-deltas based on it; another with the same id
    // (a pack may repeat an object) finds none, or a pack of one blob repeated and deltas
    // based on it would look them all over once per copy.
    const taken = ref < end && this.#taken[ref] === 1;
    if (ref < end) this.#taken[ref] = 1;
    const refEnd = taken ? ref : end;
    const ofs = index === NONE ? 0 : childStart[index];
    const ofsEnd = index === NONE ? 0 : childStart[index + 1];
    return { index, depth, bytes, ofs, ofsEnd, ref, refEnd };
  }

  /** Where the ref-deltas based on `id` are in `refOrder`. */
  #refRange(id: Buffer): [number, number] {
    return [this.#bound(id, 0), this.#bound(id, 1)];
  }

  /** The first place in `refOrder` whose base id is at least `id` (`past` 0) or past it (1). */
  #bound(id: Buffer, past: 0 | 1): number {
    const order = this.#refOrder;
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.entries.refBase(order[mid]);
      if (this.pack.compare(id, 0, 20, at, at + 20) < past) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

/** git's delta format: the base's size, the result's, then copy and insert instructions. */
export function applyDelta(delta: Buffer, base: Buffer, offset = 0): Buffer {
  const bad = () => new UnindexablePack(`the delta at offset ${offset} does not apply`);
  let pos = 0;
  const size = () => {
    let value = 0;
    for (let shift = 0; ; shift += 7) {
      if (pos >= delta.length) throw bad();
      const byte = delta[pos++];
      value += (byte & 0x7f) * 2 ** shift;
      if (!(byte & 0x80)) return value;
    }
  };
  if (size() !== base.length) throw bad();
  const out = Buffer.allocUnsafe(size());
  let at = 0;
  while (pos < delta.length) {
    const op = delta[pos++];
    if (op & 0x80) {
      let from = 0;
      let length = 0;
      for (let i = 0; i < 4; i++) if (op & (1 << i)) from += delta[pos++] * 2 ** (8 * i);
      for (let i = 0; i < 3; i++) if (op & (16 << i)) length += delta[pos++] * 2 ** (8 * i);
      if (length === 0) length = 0x10000;
      if (pos > delta.length || from + length > base.length || at + length > out.length)
        throw bad();
      at += base.copy(out, at, from, from + length);
    } else if (op > 0) {
      if (pos + op > delta.length || at + op > out.length) throw bad();
      at += delta.copy(out, at, pos, pos + op);
      pos += op;
    } else throw bad();
  }
  if (at !== out.length) throw bad();
  return out;
}
