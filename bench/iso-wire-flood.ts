// What a tenant's git server answering in tiny pkt-lines costs the isomorphic-git client: wall
// time and RSS growth of reading (1) one ref then 20 MiB of 1-byte lines as an advertisement,
// through the ref bound and the HEAD symref repair, (2) a 2 MiB upload-pack answer of 1-byte
// band-1 lines, counting its file writes, and (3) the largest advertisement allowed (50,000
// refs). In-process, no network: the readers are what is measured.
// Run: node hack/run-ts.mjs bench/iso-wire-flood.ts
import { performance } from "node:perf_hooks";
import { DEFAULT_CONTENT_LIMITS } from "../lib/git/content-limits";
import { httpWithHeadHint, keepRefs } from "../lib/git/iso-http";
import { receiveAnswer } from "../lib/git/iso-pack-receive";
import { refBoundedHttp } from "../lib/git/iso-ref-bound";

const MiB = 1024 * 1024;
const oid = "a".repeat(40);
const pkt = (s: string) => `${(Buffer.byteLength(s) + 4).toString(16).padStart(4, "0")}${s}`;

/** `buf` in 64 KiB chunks, as a socket delivers it. */
async function* chunks(buf: Buffer): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < buf.length; at += 64 * 1024) yield buf.subarray(at, at + 64 * 1024);
}

/** An advertisement through the bound and the repair, as the iso client stacks them. */
async function advertise(adv: Buffer): Promise<string> {
  const server = {
    request: () =>
      Promise.resolve({
        url: "",
        method: "GET",
        statusCode: 200,
        statusMessage: "OK",
        headers: {},
        body: chunks(adv),
      }),
  };
  const http = httpWithHeadHint(
    refBoundedHttp(server, DEFAULT_CONTENT_LIMITS, "http://bench/r.git"),
    "main",
  );
  return http.request({ url: "http://bench/r.git/info/refs?service=git-upload-pack" }).then(
    () => "read",
    (e: Error) => e.message,
  );
}

async function measure(name: string, run: () => Promise<string>): Promise<void> {
  const rss = process.memoryUsage().rss;
  const t = performance.now();
  const outcome = await run();
  const ms = (performance.now() - t).toFixed(0);
  const mb = ((process.memoryUsage().rss - rss) / 1e6).toFixed(0);
  console.log(`${name}: ${ms} ms, RSS +${mb} MB: ${outcome}`);
}

async function main(): Promise<void> {
  const first =
    pkt("# service=git-upload-pack\n") + "0000" + pkt(`${oid} refs/heads/main\0ofs-delta\n`);
  const flood = Buffer.concat([
    Buffer.from(first),
    Buffer.alloc(20 * MiB, "0005a"),
    Buffer.from("0000"),
  ]);
  await measure("one ref then 20 MiB of 1-byte lines", () => advertise(flood));

  const tiny = Buffer.alloc(2 * MiB, "0006\x01x");
  let writes = 0;
  const file = {
    write: (b: Buffer) => {
      writes++;
      return Promise.resolve({ bytesWritten: b.length, buffer: b });
    },
  };
  await measure("a 2 MiB upload-pack answer in 1-byte lines", () =>
    receiveAnswer(chunks(tiny), file as never).then(
      () => `read, ${writes} writes`,
      (e: Error) => `${e.message}, ${writes} writes`,
    ),
  );

  const refs = [first];
  for (let i = 1; i < DEFAULT_CONTENT_LIMITS.maxRefs; i++)
    refs.push(pkt(`${oid} refs/tags/t${i}\n`));
  const largest = Buffer.from(`${refs.join("")}0000`);
  await measure(`${DEFAULT_CONTENT_LIMITS.maxRefs} refs (${largest.length} bytes)`, async () => {
    const outcome = await advertise(largest);
    return `${outcome}, kept ${keepRefs(largest, ref => ref === "refs/tags/t7").length} bytes`;
  });
}

void main();
