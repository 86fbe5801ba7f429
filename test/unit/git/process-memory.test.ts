import http from "node:http";
import type { AddressInfo } from "node:net";
import { GitContentStore, isGitStoreError } from "../../../lib/git";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import { gitNetworkFromEnv, type GitNetwork } from "../../../lib/git/network";
import { DEFAULT_GIT_PROCESS_MEMORY, outOfMemory } from "../../../lib/git/process-memory";
import { startFixture, track, type Fixture } from "./helpers";

jest.setTimeout(120_000);

// A server advertising 100,000 refs: git itself held them all (about 1.4 KB each, 1.4 GB for a
// million, measured) before our ref limit could count what it wrote. Each git process now runs
// with its data memory bounded, and running out is ContentTooLarge naming the setting; before,
// git took what it needed and the fetch failed later (Transport, at the server's refusal).
const REFS = 100_000;
let flood: http.Server;
let url: string;
let fx: Fixture;

beforeAll(async () => {
  fx = await startFixture();
  const pkt = (s: string) => `${(s.length + 4).toString(16).padStart(4, "0")}${s}`;
  const oid = "a".repeat(40);
  flood = http.createServer((req, res) => {
    if (!req.url?.includes("/info/refs")) {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/x-git-upload-pack-advertisement" });
    let body = pkt("# service=git-upload-pack\n") + "0000" + pkt(`${oid} HEAD\0ofs-delta\n`);
    for (let i = 0; i < REFS; i++) body += pkt(`${oid} refs/tags/flood-${i}\n`);
    res.end(`${body}0000`);
  });
  await new Promise<void>(resolve => flood.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(flood.address() as AddressInfo).port}/flood.git`;
});
afterAll(async () => {
  await new Promise(resolve => flood.close(resolve));
  await fx.close();
});

const network = (gitProcessMemoryBytes: number): GitNetwork => ({
  ...gitNetworkFromEnv(process.env),
  // Far above the advertisement: only git's memory bound can stop it here.
  limits: { ...DEFAULT_CONTENT_LIMITS, maxRefs: 10 * REFS },
  gitProcessMemoryBytes,
});

describe("the git process memory bound", () => {
  it("is 256 MiB by default and read from PORCH_PEPR_GIT_PROCESS_MEMORY_BYTES", () => {
    expect(DEFAULT_GIT_PROCESS_MEMORY).toBe(256 * 1024 * 1024);
    const env = { ...process.env, PORCH_PEPR_GIT_PROCESS_MEMORY_BYTES: "1000000" };
    expect(gitNetworkFromEnv(env).gitProcessMemoryBytes).toBe(1_000_000);
  });

  it("ends a git fetch holding a flood of refs: ContentTooLarge naming the setting", async () => {
    const limit = 32 * 1024 * 1024;
    const store = track(
      new GitContentStore(
        { url },
        { cacheRoot: await fx.cacheRoot(), client: "cli", network: network(limit) },
      ),
    );
    const error = await store.open().catch(e => e);
    expect(isGitStoreError(error, "ContentTooLarge")).toBe(true);
    expect(error.message).toBe(
      `git fetch for ${url} ran out of the ${limit} bytes of memory a git process may take (PORCH_PEPR_GIT_PROCESS_MEMORY_BYTES)`,
    );
  });

  it("reads git's own words only: a server's remote: line is not git running out", () => {
    expect(outOfMemory("fatal: Out of memory, calloc failed")).toBe(true);
    expect(outOfMemory("error: RPC failed; HTTP 500")).toBe(false);
  });
});
