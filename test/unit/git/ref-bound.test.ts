import { GitContentStore, isGitStoreError } from "../../../lib/git";
import { DEFAULT_CONTENT_LIMITS, gitContentLimitsFromEnv } from "../../../lib/git/content-limits";
import { gitNetworkFromEnv, type GitNetwork } from "../../../lib/git/network";
import { refLineCount } from "../../../lib/git/iso-ref-bound";
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
    expect(refLineCount(adv)).toBe(3);
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
