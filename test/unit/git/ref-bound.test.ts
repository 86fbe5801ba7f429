import { GitContentStore, isGitStoreError } from "../../../lib/git";
import { DEFAULT_CONTENT_LIMITS, gitContentLimitsFromEnv } from "../../../lib/git/content-limits";
import { gitNetworkFromEnv, type GitNetwork } from "../../../lib/git/network";
import { advertisedRefLines, refBoundedHttp } from "../../../lib/git/iso-ref-bound";
import { CLIENTS, git, startFixture, track, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

// A server advertising a flood of refs is refused once it passes PORCH_PEPR_GIT_MAX_REFS, by both
// clients, before anything is fetched: before this bound both read and kept every ref (up to the
// per-fetch limit's 128 MiB of advertisement).
let fx: Fixture;
let url: string;
const TAGS = 30;
beforeAll(async () => {
  fx = await startFixture();
  url = await fx.repo("tags");
  const work = await workClone(fx, url);
  await writeFiles(work, { "README.md": "tags\n" });
  await git(work, "add", ".");
  await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one");
  for (let i = 0; i < TAGS; i++) await git(work, "tag", `flood-${i}`);
  await git(work, "push", "-q", "origin", "HEAD:main", "--tags");
});
afterAll(() => fx.close());

const network = (maxRefs: number): GitNetwork => {
  const base = gitNetworkFromEnv(process.env);
  return { ...base, limits: { ...DEFAULT_CONTENT_LIMITS, maxRefs } };
};

describe("the ref limit", () => {
  it("is 50,000 refs by default and read from PORCH_PEPR_GIT_MAX_REFS", () => {
    expect(DEFAULT_CONTENT_LIMITS.maxRefs).toBe(50_000);
    expect(gitContentLimitsFromEnv({ PORCH_PEPR_GIT_MAX_REFS: "7" }).maxRefs).toBe(7);
  });

  it("counts an advertisement's ref lines, peeled ones included", () => {
    const pkt = (s: string) => `${(s.length + 4).toString(16).padStart(4, "0")}${s}`;
    const oid = "a".repeat(40);
    const adv = Buffer.from(
      pkt("# service=git-upload-pack\n") +
        "0000" +
        pkt(`${oid} HEAD\0side-band-64k\n`) +
        pkt(`${oid} refs/tags/v1\n`) +
        pkt(`${oid} refs/tags/v1^{}\n`) +
        "0000",
    );
    expect(advertisedRefLines(adv, "git-upload-pack", 10)).toBe(3);
  });
});

describe.each(CLIENTS)("a repository advertising more refs than allowed (%s)", client => {
  it("is refused as ContentTooLarge naming the setting", async () => {
    const store = track(
      new GitContentStore(
        { url },
        { cacheRoot: await fx.cacheRoot(), client, network: network(10) },
      ),
    );
    const error = await store.open().catch(e => e);
    expect(isGitStoreError(error, "ContentTooLarge")).toBe(true);
    expect(error.message).toMatch(
      /advertises more than 10 refs or 5120 bytes of them, over the limit of 10 refs advertised per fetch \(PORCH_PEPR_GIT_MAX_REFS\)$/,
    );
  });

  it("is read when within the limit", async () => {
    const store = track(
      new GitContentStore(
        { url },
        { cacheRoot: await fx.cacheRoot(), client, network: network(TAGS + 5) },
      ),
    );
    await expect(store.open()).resolves.toMatch(/^[0-9a-f]{40}$/);
  });
});

// The CLI checks the limit on the refs its fetch took (a listing of its own could be answered
// with fewer refs than the fetch): refs kept under a higher limit are not kept under a lower one.
describe("a CLI cache holding more refs than the limit allows", () => {
  it("is emptied and the fetch refused as ContentTooLarge", async () => {
    const cacheRoot = await fx.cacheRoot();
    const open = (maxRefs: number) =>
      track(new GitContentStore({ url }, { cacheRoot, client: "cli", network: network(maxRefs) }));
    const wide = open(TAGS + 5);
    await wide.open();
    const tagsIn = async () =>
      (await git(wide.cacheDir, "for-each-ref", "refs/tags/")).split("\n").filter(Boolean).length;
    expect(await tagsIn()).toBe(TAGS);
    const error = await open(10)
      .open()
      .catch(e => e);
    expect(isGitStoreError(error, "ContentTooLarge")).toBe(true);
    expect(error.message).toMatch(/PORCH_PEPR_GIT_MAX_REFS\)$/);
    expect(await tagsIn()).toBe(0);
  });
});

// The advertisement is walked once, as views of its bytes, and every pkt-line counts: before,
// only ref-like lines did, so one ref then millions of 1-byte lines passed the limit and were
// copied line by line (20 MiB of them: +663 MB RSS). Its grammar is checked on the way.
describe("an isomorphic-git advertisement", () => {
  const pkt = (s: string) => `${(Buffer.byteLength(s) + 4).toString(16).padStart(4, "0")}${s}`;
  const oid = "a".repeat(40);
  const REPO = "http://user:secret@127.0.0.1:1/r.git";
  const answering = (body: string | Buffer, status = 200, maxRefs = 10) =>
    refBoundedHttp(
      {
        request: () =>
          Promise.resolve({
            url: "",
            method: "GET",
            statusCode: status,
            statusMessage: "",
            headers: { "content-type": "application/x-git-upload-pack-advertisement" },
            body: (async function* () {
              yield Buffer.from(body);
            })(),
          }),
      },
      { ...DEFAULT_CONTENT_LIMITS, maxRefs },
      REPO,
    ).request({ url: "http://127.0.0.1:1/r.git/info/refs?service=git-upload-pack" });
  const refusal = (body: string | Buffer, maxRefs = 10) =>
    answering(body, 200, maxRefs).then(
      () => undefined,
      (e: Error) => e,
    );
  const good = [
    pkt("# service=git-upload-pack\n"),
    "0000",
    pkt(`${oid} HEAD\0side-band-64k\n`),
    pkt(`${oid} refs/tags/v1\n`),
    pkt(`${oid} refs/tags/v1^{}\n`),
    "0000",
  ];

  it("passes a well-formed advertisement on byte for byte", async () => {
    const res = await answering(good.join(""));
    const chunks: Uint8Array[] = [];
    for await (const c of res.body!) chunks.push(c);
    expect(Buffer.concat(chunks).toString()).toBe(good.join(""));
    const empty = pkt("# service=git-upload-pack\n") + "00000000";
    expect(await refusal(empty)).toBeUndefined();
    expect(
      await refusal(
        `${pkt("# service=git-upload-pack\n")}0000${pkt(`${"0".repeat(40)} capabilities^{}\0ofs-delta\n`)}0000`,
      ),
    ).toBeUndefined();
  });

  it("counts every pkt-line against the ref limit: one ref then a flood of 1-byte lines is refused", async () => {
    const flood = Buffer.concat([
      Buffer.from(good.slice(0, 3).join("")),
      Buffer.alloc(5 * 100_000, "0005a"),
      Buffer.from("0000"),
    ]);
    // The default limit: 50,000 refs, 25.6 MB, which the flood's 500 KB are well within.
    const error = await refusal(flood, DEFAULT_CONTENT_LIMITS.maxRefs);
    expect(isGitStoreError(error, "Transport")).toBe(true);
    expect(error?.message).toBe(
      "git server http://***@127.0.0.1:1/r.git sent a malformed ref advertisement (a line that is no ref)",
    );
    // Within the limit's bytes, past its lines: refused as too many refs.
    const refs = Array.from({ length: 11 }, (_, i) => pkt(`${oid} refs/tags/t${i}\n`));
    const many = await refusal([...good.slice(0, 3), ...refs, "0000"].join(""));
    expect(isGitStoreError(many, "ContentTooLarge")).toBe(true);
  });

  it.each([
    ["no service line", [pkt(`${oid} HEAD\0x\n`), "0000"], "no service line"],
    [
      "no flush after the service line",
      [pkt("# service=git-upload-pack\n"), pkt(`${oid} HEAD\0x\n`), "0000"],
      "no flush after the service line",
    ],
    [
      "capabilities twice",
      [...good.slice(0, 3), pkt(`${oid} refs/heads/b\0y\n`), "0000"],
      "a line that is no ref",
    ],
    [
      "a line after the final flush",
      [...good, pkt(`${oid} refs/heads/b\n`)],
      "a line after the final flush",
    ],
    ["no final flush", good.slice(0, 4), "no final flush"],
    ["a cut line", [...good.slice(0, 3), "00ff"], "a line cut short"],
    ["a line with no length", [...good.slice(0, 3), "zzzz"], "a line with no length"],
  ])("refuses %s, naming the problem and not the server's bytes", async (_, lines, why) => {
    const error = await refusal(lines.join(""));
    expect(isGitStoreError(error, "Transport")).toBe(true);
    expect(error?.message).toBe(
      `git server http://***@127.0.0.1:1/r.git sent a malformed ref advertisement (${why})`,
    );
  });

  it("leaves an answer other than 200 to isomorphic-git (its HTTP error)", async () => {
    expect(await answering("<html>no</html>", 404).then(r => r.statusCode)).toBe(404);
  });
});
