import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { GitContentStore, isGitStoreError } from "../../../lib/git";
import { DEFAULT_CONTENT_LIMITS, type GitContentLimits } from "../../../lib/git/content-limits";
import { gitNetworkFromEnv } from "../../../lib/git/network";
import { CLIENTS, git, startFixture, track, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

// Content limits and bytes, the same for both clients: a file, a package or a fetch over its
// limit is refused with a message naming the file and the limit's setting; a file that is not
// UTF-8 is refused naming it; every other file comes back byte for byte.
const KPTFILE = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: p\n";
const LIMITS: GitContentLimits = {
  maxFileBytes: 1024,
  maxPackageBytes: 1500,
  maxPackageFiles: 4,
  maxFetchBytes: DEFAULT_CONTENT_LIMITS.maxFetchBytes,
  maxTreeEntries: DEFAULT_CONTENT_LIMITS.maxTreeEntries,
  maxObjectBytes: DEFAULT_CONTENT_LIMITS.maxObjectBytes,
  maxInflatedBytes: DEFAULT_CONTENT_LIMITS.maxInflatedBytes,
  maxRevisions: DEFAULT_CONTENT_LIMITS.maxRevisions,
  maxRefs: DEFAULT_CONTENT_LIMITS.maxRefs,
  maxCommitBytes: DEFAULT_CONTENT_LIMITS.maxCommitBytes,
  maxPackObjects: DEFAULT_CONTENT_LIMITS.maxPackObjects,
};
const BINARY = Buffer.from("\xff\xfe\x00\x01binary\x80", "latin1");
// A BOM, text in three scripts and a 4-byte character: valid UTF-8 that must not change.
const TEXT = Buffer.from("\ufeffname: caf\u00e9 \u65e5\u672c \u{1f600}\r\n", "utf8");

let fx: Fixture;
let url: string;
beforeAll(async () => {
  fx = await startFixture();
  url = await fx.repo("limits");
  const work = await workClone(fx, url);
  await writeFiles(work, {
    "ok/Kptfile": KPTFILE,
    "ok/text.yaml": TEXT,
    "big/Kptfile": KPTFILE,
    "big/data/big.bin": Buffer.alloc(1025, "a"),
    "many/Kptfile": KPTFILE,
    ...Object.fromEntries([1, 2, 3, 4].map(i => [`many/f${i}.yaml`, "a: 1\n"])),
    "total/Kptfile": KPTFILE,
    ...Object.fromEntries([1, 2].map(i => [`total/f${i}.yaml`, "a".repeat(1000)])),
    "binary/Kptfile": KPTFILE,
    "binary/blob.bin": BINARY,
  });
  // A file name that is not UTF-8: only a Buffer path can make one.
  await writeFiles(work, { "badname/Kptfile": KPTFILE });
  writeFileSync(Buffer.concat([Buffer.from(`${work}/badname/bad`), Buffer.from([0xff])]), "a: 1\n");
  await git(work, "add", ".");
  await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "content");
  await git(work, "tag", "v1");
  await git(work, "push", "-q", "origin", "HEAD:main", "--tags");
});
afterAll(() => fx.close());

describe.each(CLIENTS)("content limits and bytes (%s)", client => {
  const store = async (limits = LIMITS) =>
    track(
      new GitContentStore(
        { url },
        {
          cacheRoot: await fx.cacheRoot(),
          client,
          network: { ...gitNetworkFromEnv(process.env), limits },
        },
      ),
    );
  const refusal = async (s: GitContentStore, dir: string) => {
    const error = await s.readAtRef("v1", dir).catch((e: unknown) => e);
    expect(isGitStoreError(error)).toBe(true);
    return { code: (error as { code: string }).code, message: (error as Error).message };
  };

  it("keeps valid UTF-8 byte for byte (BOM, CRLF, 4-byte characters)", async () => {
    const { files } = await (await store()).readAtRef("v1", "ok");
    expect(Buffer.from(files["text.yaml"], "utf8").equals(TEXT)).toBe(true);
  });

  it("refuses a file over the per-file limit, naming it and the setting", async () => {
    expect(await refusal(await store(), "big")).toEqual({
      code: "ContentTooLarge",
      message:
        'file "data/big.bin" is 1025 bytes, over the per-file limit of 1024 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)',
    });
  });

  it("refuses a package with too many files or too many bytes", async () => {
    const s = await store();
    expect(await refusal(s, "many")).toEqual({
      code: "ContentTooLarge",
      message:
        "the package has 5 files, over the limit of 4 files per package (PORCH_PEPR_GIT_MAX_PACKAGE_FILES)",
    });
    expect(await refusal(s, "total")).toEqual({
      code: "ContentTooLarge",
      message: `the package's files are ${2000 + KPTFILE.length} bytes in all, over the per-package limit of 1500 bytes (PORCH_PEPR_GIT_MAX_PACKAGE_BYTES)`,
    });
  });

  it("refuses a file that is not UTF-8 instead of rewriting it", async () => {
    expect(await refusal(await store(), "binary")).toEqual({
      code: "NotUTF8",
      message:
        'file "blob.bin" is not UTF-8 text; package files are carried as text, so binary files are not supported',
    });
  });

  it("refuses a file whose name is not UTF-8 instead of renaming it", async () => {
    expect(await refusal(await store(), "badname")).toEqual({
      code: "NotUTF8",
      message:
        'file name "bad\ufffd" is not UTF-8; package files are carried under their names as text',
    });
  });

  it("says a Kptfile over the file limit is one that does not read, and lists the others", async () => {
    const s = await store({ ...LIMITS, maxFileBytes: KPTFILE.length - 1 });
    const revisions = await s.listPackageRevisions();
    expect(revisions.map(r => r.kptfileError)).toContain(
      `Kptfile is ${KPTFILE.length} bytes, over the per-file limit of ${KPTFILE.length - 1} bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)`,
    );
  });

  it("refuses a fetch over the per-fetch limit", async () => {
    const big = await fx.repo("bigfetch");
    const work = await workClone(fx, big);
    await writeFiles(work, { "pkg/Kptfile": KPTFILE, "pkg/noise.bin": randomBytes(300_000) });
    await git(work, "add", ".");
    await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "noise");
    await git(work, "push", "-q", "origin", "HEAD:main");
    const s = track(
      new GitContentStore(
        { url: big },
        {
          cacheRoot: await fx.cacheRoot(),
          client,
          network: {
            ...gitNetworkFromEnv(process.env),
            limits: { ...LIMITS, maxFetchBytes: 100_000 },
          },
        },
      ),
    );
    const error = await s.open().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ContentTooLarge" });
    expect((error as Error).message).toContain(
      "over the per-fetch limit of 100000 bytes (PORCH_PEPR_GIT_MAX_FETCH_BYTES)",
    );
    // Refused, not half taken: the next attempt is refused the same way (compared with its
    // message, so that a failure shows what the attempt met instead).
    await expect(s.open()).rejects.toMatchObject({
      code: "ContentTooLarge",
      message: expect.stringContaining("(PORCH_PEPR_GIT_MAX_FETCH_BYTES)"),
    });
  });

  it("refuses a Repository directory that lists over the tree entry limit", async () => {
    const wide = await fx.repo(`wide-${client}`);
    const work = await workClone(fx, wide);
    // The listing reads the directories above the packages, not the packages' files (a
    // package's read has its own bounds): 150 packages are 150 entries.
    const names = [...Array(150).keys()].map(i => [`p${i}/Kptfile`, KPTFILE]);
    await writeFiles(work, Object.fromEntries(names));
    await git(work, "add", ".");
    await git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "wide");
    await git(work, "push", "-q", "origin", "HEAD:main");
    const s = track(
      new GitContentStore(
        { url: wide },
        {
          cacheRoot: await fx.cacheRoot(),
          client,
          network: {
            ...gitNetworkFromEnv(process.env),
            limits: { ...LIMITS, maxTreeEntries: 100 },
          },
        },
      ),
    );
    const error = await s.listPackageRevisions().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "ContentTooLarge" });
    expect((error as Error).message).toContain(
      "over the limit of 100 entries per tree listing (PORCH_PEPR_GIT_MAX_TREE_ENTRIES)",
    );
  });
});
