import { randomBytes } from "node:crypto";
import {
  BYTES_PER_ANSWER_LINE,
  MAX_ANSWER_LINES,
  MAX_ANSWER_LINES_BYTES,
  MalformedAnswer,
  answerWithoutPack,
  receiveAnswer,
} from "../../../lib/git/iso-pack-receive";
import { buildPack, plain, TYPE, uploadPackAnswer } from "../../support/crafted-pack";

// The upload-pack answer is read as it arrives: its pack goes to the file as views of the
// network chunks, or through one 64 KiB buffer that gathers small pieces, never joined,
// whatever the chunks' boundaries.

async function* chunked(answer: Buffer, size: number): AsyncGenerator<Uint8Array> {
  // Each chunk in its own ArrayBuffer, as a socket delivers them.
  for (let at = 0; at < answer.length; at += size)
    yield Uint8Array.from(answer.subarray(at, at + size));
}

/**
 * A file that records what is written to it (`writes`, copies, as a file keeps them), and from
 * which memory (`memory`).
 */
function recordingFile() {
  const writes: Buffer[] = [];
  const memory: ArrayBufferLike[] = [];
  return {
    writes,
    memory,
    file: {
      write: (piece: Buffer) => {
        writes.push(Buffer.from(piece));
        memory.push(piece.buffer);
        return Promise.resolve({ bytesWritten: piece.length, buffer: piece });
      },
    } as never,
  };
}

describe("receiveAnswer", () => {
  // Two side-band lines of pack data, the first 65,515 bytes.
  const { pack } = buildPack([plain(TYPE.blob, randomBytes(80_000))]);
  const answer = uploadPackAnswer(pack);

  it.each([3, 4, 5, 4096, 65_536, answer.length])(
    "writes the pack exactly, in chunks of %d bytes, as views of them or of one buffer",
    async size => {
      const received: Uint8Array[] = [];
      const body = (async function* () {
        for await (const c of chunked(answer, size)) {
          received.push(c);
          yield c;
        }
      })();
      const { file, writes, memory } = recordingFile();
      const result = await receiveAnswer(body, file);
      expect(result.packBytes).toBe(pack.length);
      expect(Buffer.concat(writes).equals(pack)).toBe(true);
      // No second copy of the pack: every piece written is memory of a chunk received, or of
      // the one buffer gathering small pieces.
      const chunks = new Set(received.map(c => c.buffer));
      const other = new Set(memory.filter(b => !chunks.has(b as ArrayBuffer)));
      expect(other.size).toBeLessThanOrEqual(1);
      expect(writes.length).toBeLessThanOrEqual(Math.ceil(pack.length / (16 * 1024)) + 2);
      expect(result.lines.map(l => l.toString())).toEqual(["NAK\n"]);
    },
  );

  // A pack in small band-1 lines made one awaited write per line: 2 MiB in 1-byte lines, 350,000
  // writes and 58 s. Small pieces are gathered into writes of at least 48 KiB.
  it("writes a pack sent in small lines in few writes", async () => {
    const data = randomBytes(1024 * 1024);
    const lines = [];
    for (let at = 0; at < data.length; at += 1100)
      lines.push(
        Buffer.from(`${(Math.min(1100, data.length - at) + 5).toString(16).padStart(4, "0")}\x01`),
        data.subarray(at, at + 1100),
      );
    const { file, writes } = recordingFile();
    const result = await receiveAnswer(
      chunked(Buffer.concat([...lines, Buffer.from("0000")]), 4096),
      file,
    );
    expect(result.packBytes).toBe(data.length);
    expect(Buffer.concat(writes).equals(data)).toBe(true);
    expect(writes.length).toBeLessThanOrEqual(Math.ceil(data.length / (48 * 1024)));
  });

  it("refuses an answer of more pkt-lines than its bytes justify", async () => {
    const { file, writes } = recordingFile();
    const tiny = Buffer.alloc(6 * 350_000, "0006\x01x");
    const error = await receiveAnswer(chunked(tiny, 65_536), file).catch((e: Error) => e);
    expect(error).toEqual(
      new MalformedAnswer(
        `more than ${MAX_ANSWER_LINES} lines and one per ${BYTES_PER_ANSWER_LINE} bytes`,
      ),
    );
    // Stopped at the first line past the bound, the pack written so far in one or two writes.
    expect(writes.length).toBeLessThanOrEqual(1);
  });

  it("gives isomorphic-git the answer's lines without the pack", async () => {
    const { file } = recordingFile();
    const { lines } = await receiveAnswer(chunked(answer, 7), file);
    expect(answerWithoutPack(lines).toString()).toBe("0008NAK\n0000");
  });

  it("refuses a band 3 error, a line with no length, an answer cut inside a line, and too many lines", async () => {
    const { file } = recordingFile();
    const fail = (a: Buffer) =>
      receiveAnswer(chunked(a, 5), file).then(
        () => undefined,
        (e: Error) => e,
      );
    expect(await fail(Buffer.from("0008NAK\n0009\u0003oops0000"))).toEqual(
      new MalformedAnswer("an error instead of a pack"),
    );
    expect(await fail(Buffer.from("0008NAK\nzzzz"))).toEqual(
      new MalformedAnswer("a line with no length"),
    );
    expect(await fail(answer.subarray(0, answer.length - 100))).toEqual(
      new MalformedAnswer("an answer that ends inside a line"),
    );
    const line = Buffer.from(`0404${"x".repeat(0x400)}`);
    const many = Buffer.concat(Array.from({ length: 70 }, () => line));
    expect(await fail(many)).toEqual(
      new MalformedAnswer(`more than ${MAX_ANSWER_LINES_BYTES} bytes of lines before the pack`),
    );
  });
});
