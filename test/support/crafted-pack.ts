// Packs built byte by byte, as a hostile git server would: objects whose headers claim any size,
// and deltas whose headers claim any result. Also a smart HTTP server answering every fetch
// with one such pack.
import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import type { HostileServer } from "./hostile-servers";
import { startHttp } from "./hostile-servers";

export const TYPE = { commit: 1, tree: 2, blob: 3, ofsDelta: 6, refDelta: 7 } as const;

/** A pack object's type and size header (size in 4 + 7n bits). */
function objectHeader(type: number, size: number): Buffer {
  const out = [(type << 4) | (size & 0x0f)];
  let rest = Math.floor(size / 16);
  while (rest > 0) {
    out[out.length - 1] |= 0x80;
    out.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(out);
}

/** A little-endian 7-bit varint (delta headers). */
export function deltaVarint(n: number): Buffer {
  const out = [n & 0x7f];
  let rest = Math.floor(n / 128);
  while (rest > 0) {
    out[out.length - 1] |= 0x80;
    out.push(rest & 0x7f);
    rest = Math.floor(rest / 128);
  }
  return Buffer.from(out);
}

export interface PackObject {
  type: number;
  /** The size the header claims. */
  size: number;
  /** The deflated data. */
  deflated: Buffer;
  /** An OFS_DELTA's distance back to its base. */
  ofs?: number;
  /** An OFS_DELTA's base by its index in the pack (the distance is worked out when built). */
  ofsTo?: number;
  /** A REF_DELTA's base, by id. */
  ref?: string;
}

/** An object whose header tells the truth about `data`. */
export const plain = (type: number, data: Buffer): PackObject => ({
  type,
  size: data.length,
  deflated: deflateSync(data),
});

/**
 * A blob of `size` zero bytes. Deflating allocates them once, in the test process only: zeros
 * deflate about 1000:1 (64 MiB to ~64 KiB).
 */
export const zeros = (size: number): PackObject => ({
  type: TYPE.blob,
  size,
  deflated: deflateSync(Buffer.alloc(size)),
});

/** An OFS delta `back` bytes after its base, copying `copy` bytes of it `times` times. */
export function copyingDelta(
  baseSize: number,
  copy: number,
  times: number,
  back: number,
): PackObject {
  // Copy op: 0x80 | offset bits (none: offset 0) | size bits 0x10, 0x20, 0x40 (3 bytes).
  const op = Buffer.from([0x80 | 0x10 | 0x20 | 0x40, copy & 0xff, (copy >> 8) & 0xff, copy >> 16]);
  const data = Buffer.concat([
    deltaVarint(baseSize),
    deltaVarint(copy * times),
    ...Array<Buffer>(times).fill(op),
  ]);
  return { type: TYPE.ofsDelta, size: data.length, deflated: deflateSync(data), ofs: back };
}

/**
 * Delta data that copies the whole of a base of `baseSize` bytes (below 16 MiB) and then
 * inserts `extra` (1 to 127 bytes): its result is the base followed by `extra`.
 */
export function appendingDelta(baseSize: number, extra: Buffer): Buffer {
  // Copy op: offset 0 (no offset bytes), size in three bytes (0x10, 0x20, 0x40).
  const copy =
    baseSize > 0
      ? Buffer.from([0x80 | 0x70, baseSize & 0xff, (baseSize >> 8) & 0xff, baseSize >> 16])
      : Buffer.alloc(0);
  return Buffer.concat([
    deltaVarint(baseSize),
    deltaVarint(baseSize + extra.length),
    copy,
    Buffer.from([extra.length]),
    extra,
  ]);
}

/** The git object id of `data` as `type`. */
export function oidOf(type: string, data: Buffer): string {
  return createHash("sha1")
    .update(Buffer.concat([Buffer.from(`${type} ${data.length}\0`), data]))
    .digest("hex");
}

/** A version 2 pack of `objects`, with its SHA-1 trailer; offsets[i] is object i's offset. */
export function buildPack(objects: PackObject[]): { pack: Buffer; offsets: number[] } {
  const head = Buffer.alloc(12);
  head.write("PACK", 0, "latin1");
  head.writeUInt32BE(2, 4);
  head.writeUInt32BE(objects.length, 8);
  const parts = [head];
  const offsets: number[] = [];
  let at = 12;
  for (const o of objects) {
    offsets.push(at);
    const back = o.ofsTo !== undefined ? at - offsets[o.ofsTo] : o.ofs;
    const ofs =
      back !== undefined
        ? ofsVarint(back)
        : o.ref !== undefined
          ? Buffer.from(o.ref, "hex")
          : Buffer.alloc(0);
    const part = Buffer.concat([objectHeader(o.type, o.size), ofs, o.deflated]);
    parts.push(part);
    at += part.length;
  }
  const body = Buffer.concat(parts);
  return {
    pack: Buffer.concat([body, createHash("sha1").update(body).digest()]),
    offsets,
  };
}

/** git's OFS_DELTA distance encoding (big-endian, each continuation adds one). */
function ofsVarint(n: number): Buffer {
  const out = [n & 0x7f];
  let rest = n >> 7;
  while (rest > 0) {
    rest -= 1;
    out.unshift(0x80 | (rest & 0x7f));
    rest >>= 7;
  }
  return Buffer.from(out);
}

/** A commit of the empty tree (which it carries), for a pack a fetch accepts. */
export function emptyCommit(): { oid: string; objects: PackObject[] } {
  const tree = Buffer.alloc(0);
  const commit = Buffer.from(
    `tree ${oidOf("tree", tree)}\nauthor a <a@a> 0 +0000\ncommitter a <a@a> 0 +0000\n\nm\n`,
  );
  return {
    oid: oidOf("commit", commit),
    objects: [plain(TYPE.commit, commit), plain(TYPE.tree, tree)],
  };
}

const pkt = (payload: Buffer | string) => {
  const b = Buffer.from(payload);
  return Buffer.concat([Buffer.from((b.length + 4).toString(16).padStart(4, "0")), b]);
};

/** A fetch's answer: NAK, then `pack` on side band 1 in 64 KiB lines. */
export function uploadPackAnswer(pack: Buffer): Buffer {
  const lines = [pkt("NAK\n")];
  for (let at = 0; at < pack.length; at += 65515)
    lines.push(pkt(Buffer.concat([Buffer.from([1]), pack.subarray(at, at + 65515)])));
  return Buffer.concat([...lines, Buffer.from("0000")]);
}

/**
 * A smart HTTP git server whose branch `main` is at `head` and which answers every fetch with
 * `pack`, whatever was asked.
 */
export function startPackServer(head: string, pack: Buffer): Promise<HostileServer> {
  const caps = "multi_ack_detailed side-band-64k ofs-delta symref=HEAD:refs/heads/main agent=t";
  const advertisement = Buffer.concat([
    pkt("# service=git-upload-pack\n"),
    Buffer.from("0000"),
    pkt(`${head} HEAD\0${caps}\n`),
    pkt(`${head} refs/heads/main\n`),
    Buffer.from("0000"),
  ]);
  const answer = uploadPackAnswer(pack);
  return startHttp("127.0.0.1", (req, res) => {
    if (req.method === "GET" && /\/info\/refs\?service=git-upload-pack$/.test(req.url ?? "")) {
      res.writeHead(200, { "content-type": "application/x-git-upload-pack-advertisement" });
      res.end(advertisement);
    } else if (req.method === "POST" && /\/git-upload-pack$/.test(req.url ?? "")) {
      res.writeHead(200, { "content-type": "application/x-git-upload-pack-result" });
      res.end(answer);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
}
