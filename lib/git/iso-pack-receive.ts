// An upload-pack answer, demultiplexed as it arrives: the pack (side-band 1) goes straight to a
// file, progress (band 2) is dropped, and the few packet lines before the pack (ACK/NAK) are
// kept for isomorphic-git. Nothing of the pack is joined or held in memory while it downloads:
// large pieces are written as views of the network chunks, small ones (a server can send its
// pack in 1-byte lines) gathered in one 64 KiB buffer, so a write costs at least 16 KiB of
// pack. The lines are read as isomorphic-git's GitSideBand.demux reads them, and counted.
import type { FileHandle } from "node:fs/promises";
import { FLUSH, pkt } from "./pkt-line";

/** Packet lines before the pack: a few ACK/NAK/shallow lines; more is no git server. */
export const MAX_ANSWER_LINES_BYTES = 64 * 1024;

/**
 * Pkt-lines an answer may have: MAX_ANSWER_LINES and one per BYTES_PER_ANSWER_LINE received.
 * git sends its pack in side-band-64k lines of up to 65,515 bytes, progress (band 2) a line per
 * percent per phase or per second (a few hundred in a fetch), a keepalive every 5 s: far below.
 * A server sending 1-byte lines is refused after about 25 KB, and the 128 MiB fetch limit
 * bounds the walk to 135,168 lines (before, 2 MiB of 1-byte lines took 58 s).
 */
export const MAX_ANSWER_LINES = 4096;
export const BYTES_PER_ANSWER_LINE = 1024;

/** Pack bytes gathered before a write; a piece of at least DIRECT_WRITE_BYTES goes as it is. */
const PACK_WRITE_BYTES = 64 * 1024;
const DIRECT_WRITE_BYTES = 16 * 1024;

export interface ReceivedAnswer {
  /** The answer's packet lines other than side-band data (each without its length prefix). */
  lines: Buffer[];
  /** Bytes of pack data written. */
  packBytes: number;
}

/** What the server sent that is no answer isomorphic-git could read; never quotes the server. */
export class MalformedAnswer extends Error {}

/**
 * Reads `body` to its end, appending band 1 to `pack` (a file opened for writing). Throws
 * MalformedAnswer on a line isomorphic-git could not parse, and when the server sends an error
 * on band 3 instead of the rest of its pack.
 */
export async function receiveAnswer(
  body: AsyncIterable<Uint8Array>,
  pack: Pick<FileHandle, "write">,
): Promise<ReceivedAnswer> {
  const lines: Buffer[] = [];
  let linesBytes = 0;
  let packBytes = 0;
  let lineCount = 0;
  let received = 0; // bytes of the chunks before the current one
  const toPack = packWriter(pack);
  // The length prefix being read (split across chunks at worst), then the line's payload.
  const header = Buffer.alloc(4);
  let headerHave = 0;
  /** Payload bytes of the current line still to come; its band once its first byte is read. */
  let left = 0;
  let band: number | undefined;
  let line: Buffer[] = [];
  for await (const raw of body) {
    const chunk = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    for (let pos = 0; pos < chunk.length; ) {
      if (left === 0) {
        const take = Math.min(4 - headerHave, chunk.length - pos);
        chunk.copy(header, headerHave, pos, pos + take);
        headerHave += take;
        pos += take;
        if (headerHave < 4) break;
        headerHave = 0;
        if (++lineCount > MAX_ANSWER_LINES + (received + pos) / BYTES_PER_ANSWER_LINE)
          throw new MalformedAnswer(
            `more than ${MAX_ANSWER_LINES} lines and one per ${BYTES_PER_ANSWER_LINE} bytes`,
          );
        const hex = header.toString("latin1");
        if (!/^[0-9a-fA-F]{4}$/.test(hex)) throw new MalformedAnswer("a line with no length");
        const len = Number.parseInt(hex, 16);
        if (len === 0 || len === 1 || len === 4) continue; // flush, delimiter, empty line
        if (len < 4) throw new MalformedAnswer(`a line of length ${len}`);
        left = len - 4;
        band = undefined;
        continue;
      }
      if (band === undefined) {
        band = chunk[pos];
        if (band === 3) throw new MalformedAnswer("an error instead of a pack");
        if (band === 1 || band === 2) {
          pos++;
          left--;
        }
      }
      const end = pos + Math.min(left, chunk.length - pos);
      const piece = chunk.subarray(pos, end);
      left -= piece.length;
      pos = end;
      if (band === 1) {
        // Each write completes before the next chunk is read: the socket waits, not memory.
        await toPack.write(piece);
        packBytes += piece.length;
      } else if (band !== 2) {
        linesBytes += piece.length;
        if (linesBytes > MAX_ANSWER_LINES_BYTES)
          throw new MalformedAnswer(
            `more than ${MAX_ANSWER_LINES_BYTES} bytes of lines before the pack`,
          );
        line.push(Buffer.from(piece));
        if (left === 0) {
          lines.push(Buffer.concat(line));
          line = [];
        }
      }
    }
    received += chunk.length;
  }
  if (left > 0 || headerHave > 0) throw new MalformedAnswer("an answer that ends inside a line");
  await toPack.flush();
  return { lines, packBytes };
}

/** Writes to `pack`: pieces of DIRECT_WRITE_BYTES or more as they are, smaller ones gathered. */
function packWriter(pack: Pick<FileHandle, "write">) {
  const gathered = Buffer.allocUnsafe(PACK_WRITE_BYTES);
  let size = 0;
  const flush = async () => {
    if (size === 0) return;
    // The write completes before the buffer is filled again.
    await pack.write(gathered.subarray(0, size));
    size = 0;
  };
  return {
    flush,
    async write(piece: Buffer): Promise<void> {
      if (size + piece.length > PACK_WRITE_BYTES || piece.length >= DIRECT_WRITE_BYTES)
        await flush();
      if (piece.length >= DIRECT_WRITE_BYTES) {
        await pack.write(piece);
        return;
      }
      piece.copy(gathered, size);
      size += piece.length;
    },
  };
}

/** The answer isomorphic-git reads in place of the one received: its lines, no pack. */
export function answerWithoutPack(lines: Buffer[]): Buffer {
  return Buffer.concat([...lines.map(pkt), FLUSH]);
}
