// The ref advertisement a push heard, read from git's packet trace, and whether it shows that
// only the pushed refs moved (then it serves as a fetch). The real pushes are in
// push-batch-server.test.ts.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  advertisedInTrace,
  advertisedInTraceFile,
  onlyPushedMoved,
} from "../../../lib/git/advertisement";
import type { AdvertisedRefs, RefMap } from "../../../lib/git/client";
import { CliGitClient } from "../../../lib/git/cli-client";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import { gitNetworkFromEnv } from "../../../lib/git/network";

// Trace files are written and read: on a busy machine longer than jest's 5 s default.
jest.setTimeout(60_000);

const oid = (n: number) => n.toString(16).padStart(40, "0");
const line = (payload: string) =>
  `21:27:58.470328 pkt-line.c:80           packet:          git< ${payload}`;

describe("advertisedInTrace", () => {
  it("reads the first advertisement of an HTTP push's trace, up to its flush", () => {
    const trace = [
      line("# service=git-receive-pack"),
      line("0000"),
      line(`${oid(1)} refs/heads/main\\0report-status delete-refs side-band-64k atomic`),
      line(`${oid(2)} refs/tags/p/v1`),
      line("0000"),
      line("HEAD:refs/heads/x"),
      line(`${oid(9)} refs/heads/other`),
      line("0000"),
      `21:27:58.492248 pkt-line.c:80           packet:         push> ${oid(0)} ${oid(3)} refs/heads/x`,
    ].join("\n");
    expect(advertisedInTrace(trace)).toEqual(
      new Map([
        ["refs/heads/main", oid(1)],
        ["refs/tags/p/v1", oid(2)],
      ]),
    );
  });

  it("reads a local push's (push<), and an empty repository's as no refs", () => {
    const local = line(`${oid(1)} refs/heads/main\\0atomic`).replace("git<", "push<");
    expect(advertisedInTrace(`${local}\n${line("0000").replace("git<", "push<")}`)).toEqual(
      new Map([["refs/heads/main", oid(1)]]),
    );
    const empty = [line(`${oid(0)} capabilities^{}\\0report-status`), line("0000")].join("\n");
    expect(advertisedInTrace(empty)).toEqual(new Map());
  });

  it("makes no claim from a trace cut short or without an advertisement", () => {
    expect(advertisedInTrace(line(`${oid(1)} refs/heads/main\\0atomic`))).toBeUndefined();
    expect(advertisedInTrace("")).toBeUndefined();
  });
});

describe("onlyPushedMoved", () => {
  const known: RefMap = new Map([
    ["refs/heads/main", { oid: oid(1), commit: oid(1) }],
    ["refs/tags/p/v1", { oid: oid(2), commit: oid(5) }],
  ]);

  it("holds when the remote had what we know, besides the refs the push moved", () => {
    const heard = new Map([
      ["refs/heads/main", oid(7)], // leased and moved by the push
      ["refs/tags/p/v1", oid(2)],
    ]);
    expect(onlyPushedMoved(known, heard, new Set(["refs/heads/main", "refs/heads/new"]))).toBe(
      true,
    );
  });

  it("fails for a ref moved, created or deleted by someone else", () => {
    const pushed = new Set(["refs/heads/main"]);
    const moved = new Map([
      ["refs/heads/main", oid(1)],
      ["refs/tags/p/v1", oid(3)],
    ]);
    expect(onlyPushedMoved(known, moved, pushed)).toBe(false);
    const created = new Map([...moved, ["refs/tags/p/v1", oid(2)], ["refs/heads/x", oid(4)]]);
    expect(onlyPushedMoved(known, created, pushed)).toBe(false);
    expect(onlyPushedMoved(known, new Map([["refs/heads/main", oid(1)]]), pushed)).toBe(false);
  });
});

// A push's trace holds the advertisement first and the push after it: the file is read only up
// to the advertisement's flush, never whole (a trace could reach tens of MB).
describe("advertisedInTraceFile", () => {
  let dir: string;
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), "trace-"))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const traceFile = (name: string, ...parts: string[]) => {
    writeFileSync(join(dir, name), parts.join("\n"));
    return join(dir, name);
  };
  const advertisement = [
    line("# service=git-receive-pack"),
    line("0000"),
    line(`${oid(1)} refs/heads/main\\0report-status atomic`),
    line(`${oid(2)} refs/tags/p/v1`),
    line("0000"),
  ];
  const refs = new Map([
    ["refs/heads/main", oid(1)],
    ["refs/tags/p/v1", oid(2)],
  ]);
  // 230 KB of what follows an advertisement in a trace: far past the 4 KiB read below.
  const rest = Array(2_000).fill(line(`${oid(9)} ${"x".repeat(20)}`));

  it("reads the advertisement at the start of a trace larger than its bound", async () => {
    const path = traceFile("large", ...advertisement, ...rest);
    expect(await advertisedInTraceFile(path, 4096)).toEqual(refs);
  });

  it("makes no claim when the advertisement does not end within the bound", async () => {
    const path = traceFile("long", ...advertisement.slice(0, 4), ...rest, line("0000"));
    expect(await advertisedInTraceFile(path, 4096)).toBeUndefined();
    expect(await advertisedInTraceFile(path, 4 << 20)).toEqual(refs);
  });

  it("serves a CLI push whose trace is over the bound after its advertisement", async () => {
    const network = {
      ...gitNetworkFromEnv(process.env),
      limits: { ...DEFAULT_CONTENT_LIMITS, maxRefs: 10 },
    };
    const opts = { gitdir: dir, url: "https://git.invalid/r.git", branch: "main", network };
    const client = new CliGitClient(opts);
    const trace = client as unknown as {
      advertisedIn(p: string): Promise<AdvertisedRefs | undefined>;
    };
    // 230 KB of trace, over the 75,776 bytes ten refs may take: the advertisement is still whole.
    const path = traceFile("push", ...advertisement, ...rest);
    expect(await trace.advertisedIn(path)).toEqual(refs);
    client.close();
  });

  it("skips a line too long to be a packet, and reads a last line without a newline", async () => {
    const path = traceFile("odd", "y".repeat(200_000), ...advertisement);
    expect(await advertisedInTraceFile(path, 1 << 20)).toEqual(refs);
    expect(await advertisedInTraceFile(join(dir, "missing"), 4096)).toBeUndefined();
  });
});
