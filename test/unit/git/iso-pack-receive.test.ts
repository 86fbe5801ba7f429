import { randomBytes } from "node:crypto";
import {
  MAX_ANSWER_LINES_BYTES,
  MalformedAnswer,
  answerWithoutPack,
  receiveAnswer,
} from "../../../lib/git/iso-pack-receive";
import { buildPack, plain, TYPE, uploadPackAnswer } from "../../support/crafted-pack";

// The upload-pack answer is read as it arrives: its pack goes to the file as views of the
// network chunks, never joined or copied, whatever the chunks' boundaries.

async function* chunked(answer: Buffer, size: number): AsyncGenerator<Uint8Array> {
  // Each chunk in its own ArrayBuffer, as a socket delivers them.
  for (let at = 0; at < answer.length; at += size)
    yield Uint8Array.from(answer.subarray(at, at + size));
}

/** A file that records what is written to it, and from which memory. */
function recordingFile() {
  const writes: Buffer[] = [];
  return {
    writes,
    file: {
      write: (piece: Buffer) => {
        writes.push(piece);
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
    "writes the pack exactly, in chunks of %d bytes, as views of them",
    async size => {
      const received: Uint8Array[] = [];
      const body = (async function* () {
        for await (const c of chunked(answer, size)) {
          received.push(c);
          yield c;
        }
      })();
      const { file, writes } = recordingFile();
      const result = await receiveAnswer(body, file);
      expect(result.packBytes).toBe(pack.length);
      expect(Buffer.concat(writes).equals(pack)).toBe(true);
      // No second copy: every piece written is memory of a chunk received.
      const chunks = new Set(received.map(c => c.buffer));
      expect(writes.every(w => chunks.has(w.buffer as ArrayBuffer))).toBe(true);
      expect(result.lines.map(l => l.toString())).toEqual(["NAK\n"]);
    },
  );

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
