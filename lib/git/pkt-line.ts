// git's pkt-line framing (four hex digits of length, then the payload; "0000" a flush), read from
// a buffer already bounded by its caller. Lines are views of that buffer, never copies: a server
// answering in millions of 1-byte lines costs one small object per line walked, and callers stop
// walking at their own line limit.

/** One pkt-line: its payload (a view of the buffer; null for a flush) and where it starts. */
export interface PktLine {
  payload: Buffer | null;
  at: number;
}

/** Framing that is no pkt-line; the message names the problem, never the bytes. */
export class BadPktLine extends Error {}

/** The pkt-lines of `buf` in order; throws BadPktLine at the first that is not one. */
export function* pktLines(buf: Buffer): Generator<PktLine, void> {
  for (let at = 0; at < buf.length; ) {
    if (at + 4 > buf.length) throw new BadPktLine("a line cut short");
    const len = hexLength(buf, at);
    if (len === undefined) throw new BadPktLine("a line with no length");
    if (len === 0) {
      yield { payload: null, at };
      at += 4;
      continue;
    }
    if (len < 4) throw new BadPktLine(`a line of length ${len}`);
    if (at + len > buf.length) throw new BadPktLine("a line cut short");
    yield { payload: buf.subarray(at + 4, at + len), at };
    at += len;
  }
}

/** The four hex digits at `at` as a number; undefined when they are not four hex digits. */
function hexLength(buf: Buffer, at: number): number | undefined {
  let len = 0;
  for (let i = at; i < at + 4; i++) {
    const c = buf[i];
    const digit =
      c >= 0x30 && c <= 0x39
        ? c - 0x30
        : c >= 0x61 && c <= 0x66
          ? c - 0x57
          : c >= 0x41 && c <= 0x46
            ? c - 0x37
            : -1;
    if (digit < 0) return undefined;
    len = len * 16 + digit;
  }
  return len;
}

/** `payload` framed as one pkt-line. */
export function pkt(payload: Buffer): Buffer {
  return Buffer.concat([pktHeader(payload.length), payload]);
}

/** The length prefix of a pkt-line carrying `payloadBytes`. */
export function pktHeader(payloadBytes: number): Buffer {
  return Buffer.from((payloadBytes + 4).toString(16).padStart(4, "0"), "latin1");
}

export const FLUSH = Buffer.from("0000", "latin1");
