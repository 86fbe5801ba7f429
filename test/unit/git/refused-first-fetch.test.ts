import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GitContentStore } from "../../../lib/git";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import type { GitNetwork } from "../../../lib/git/network";
import { startHttp, type HostileServer } from "../../support/hostile-servers";
import { TYPE, buildPack, plain } from "../../support/crafted-pack";

jest.setTimeout(60_000);

// The git CLI's first fetch into an empty cache, ended by the per-fetch bound before git wrote a
// single ref: there is nothing to restore, and the refusal is ContentTooLarge. Before, the
// restore ran `git update-ref --stdin` on an empty script, which git refuses ("empty command in
// input"), and the fetch failed Transport (seen as a flake of content-limits.test.ts under load).
const pkt = (payload: Buffer | string) => {
  const b = Buffer.from(payload);
  return Buffer.concat([Buffer.from((b.length + 4).toString(16).padStart(4, "0")), b]);
};
const HEAD = "1".repeat(40);

let server: HostileServer;
let cacheRoot: string;
beforeAll(async () => {
  cacheRoot = await mkdtemp(join(tmpdir(), "refused-first-fetch-"));
  const caps = "multi_ack_detailed side-band-64k ofs-delta symref=HEAD:refs/heads/main agent=t";
  server = await startHttp("127.0.0.1", (req, res) => {
    if (req.method === "GET" && /service=git-upload-pack$/.test(req.url ?? "")) {
      res.writeHead(200, { "content-type": "application/x-git-upload-pack-advertisement" });
      res.end(
        Buffer.concat([
          pkt("# service=git-upload-pack\n"),
          Buffer.from("0000"),
          pkt(`${HEAD} HEAD\0${caps}\n`),
          pkt(`${HEAD} refs/heads/main\n`),
          Buffer.from("0000"),
        ]),
      );
    } else if (req.method === "POST") {
      // A pack of one 300 KB blob, without its checksum: git waits for the rest forever.
      res.writeHead(200, { "content-type": "application/x-git-upload-pack-result" });
      res.write(pkt("NAK\n"));
      const body = buildPack([plain(TYPE.blob, randomBytes(300_000))]).pack.subarray(0, -20);
      for (let at = 0; at < body.length; at += 65515)
        res.write(pkt(Buffer.concat([Buffer.from([1]), body.subarray(at, at + 65515)])));
    } else {
      res.writeHead(404);
      res.end();
    }
  });
});
afterAll(async () => {
  await server.close();
  await rm(cacheRoot, { recursive: true, force: true });
});

it("is refused ContentTooLarge when the bound ends git before any ref is written", async () => {
  const network: GitNetwork = {
    policy: { http: "loopback", file: false },
    timeouts: { connectMs: 5_000, idleMs: 30_000, totalMs: 50_000 },
    limits: { ...DEFAULT_CONTENT_LIMITS, maxFetchBytes: 100_000 },
  };
  const store = new GitContentStore(
    { url: `${server.url}/r.git` },
    { cacheRoot, client: "cli", network },
  );
  const error = await store.open().catch((e: unknown) => e);
  store.close();
  expect(error).toMatchObject({
    code: "ContentTooLarge",
    message: expect.stringContaining("(PORCH_PEPR_GIT_MAX_FETCH_BYTES)"),
  });
});
