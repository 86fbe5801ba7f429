import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { GitClient } from "../../../lib/git/client";
import { CliGitClient } from "../../../lib/git/cli-client";
import { ByteLru } from "../../../lib/byte-lru";
import { commitBytes } from "../../../lib/git/discovery-memos";
import { IsoGitClient } from "../../../lib/git/iso-client";
import { DEFAULT_CONTENT_LIMITS } from "../../../lib/git/content-limits";
import { gitNetworkFromEnv } from "../../../lib/git/network";

jest.setTimeout(60_000);

// A commit or tag is read whole and its message kept: a tag on a commit with a 120 MB message
// took the watcher from 54 to 516 MB and kept it. Both clients refuse a commit over
// PORCH_PEPR_GIT_MAX_COMMIT_BYTES, and a history (log) over sixteen of them, with ContentTooLarge.
const LIMIT = 4096;
let gitdir: string;
const git = (input: string, ...args: string[]) =>
  execFileSync("git", [`--git-dir=${gitdir}`, ...args], {
    input,
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: "a",
      GIT_AUTHOR_EMAIL: "a@x",
      GIT_COMMITTER_NAME: "a",
      GIT_COMMITTER_EMAIL: "a@x",
    },
  })
    .toString()
    .trim();

let huge: string;
let long: string;
let small: string;
beforeAll(() => {
  gitdir = mkdtempSync(join(tmpdir(), "commit-bound-"));
  execFileSync("git", ["init", "--quiet", "--bare", gitdir]);
  const tree = git("", "mktree");
  huge = git("x".repeat(LIMIT + 1), "commit-tree", tree);
  // Twenty commits each under the limit, together over sixteen times it.
  long = git("first", "commit-tree", tree);
  for (let i = 0; i < 20; i++) long = git("y".repeat(LIMIT - 400), "commit-tree", tree, "-p", long);
  small = git("a small message", "commit-tree", tree, "-p", long);
});
afterAll(() => rmSync(gitdir, { recursive: true, force: true }));

describe.each(["cli", "isomorphic"] as const)("commit bound (%s)", kind => {
  const clients: GitClient[] = [];
  const client = (): GitClient => {
    const network = {
      ...gitNetworkFromEnv(process.env),
      limits: { ...DEFAULT_CONTENT_LIMITS, maxCommitBytes: LIMIT },
    };
    const opts = { gitdir, url: "https://git.invalid/r.git", branch: "main", network };
    const c = kind === "cli" ? new CliGitClient(opts) : new IsoGitClient(opts);
    clients.push(c);
    return c;
  };
  afterAll(() => clients.forEach(c => c.close()));

  it("reads a commit under the limit", async () => {
    expect((await client().readCommit(small)).message.trim()).toBe("a small message");
  });

  it("refuses a commit over the limit, naming it and the setting", async () => {
    await expect(client().readCommit(huge)).rejects.toMatchObject({
      code: "ContentTooLarge",
      message: expect.stringMatching(
        new RegExp(
          `^git object ${huge} is \\d+ bytes, over the limit of ${LIMIT} bytes per commit or tag \\(PORCH_PEPR_GIT_MAX_COMMIT_BYTES\\)$`,
        ),
      ),
    });
  });

  it("refuses a history over sixteen times the limit", async () => {
    expect(await client().log(long, 5)).toHaveLength(5);
    await expect(client().log(small, 1000)).rejects.toMatchObject({
      code: "ContentTooLarge",
      message: `the history of commit ${small} takes more than ${16 * LIMIT} bytes, over sixteen times the limit of ${LIMIT} bytes per commit or tag (PORCH_PEPR_GIT_MAX_COMMIT_BYTES)`,
    });
  });
});

describe("the commit memo", () => {
  const commit = (oid: string, message: string) => ({
    oid,
    tree: "t",
    parents: [],
    message,
    author: { name: "a", email: "a@x", timestamp: 0, timezoneOffset: 0 },
    committer: { name: "a", email: "a@x", timestamp: 0, timezoneOffset: 0 },
  });

  it("is bounded by the bytes of its messages, names and emails", () => {
    const memo = new ByteLru<ReturnType<typeof commit>>(64 * 1024);
    const remember = (c: ReturnType<typeof commit>) => memo.set(c.oid, c, commitBytes(c));
    for (let i = 0; i < 100; i++) {
      remember(commit(`c${i}`, "m".repeat(3000)));
      expect(memo.bytes).toBeLessThanOrEqual(64 * 1024);
    }
    expect(memo.get("c99")?.message).toHaveLength(3000);
    expect(memo.get("c0")).toBeUndefined(); // the least recently used went first
    // Over an eighth of the bound alone: never kept.
    remember(commit("big", "b".repeat(8 * 1024)));
    expect(memo.get("big")).toBeUndefined();
    const longEmail = commit("email", "");
    longEmail.author.email = "e".repeat(8 * 1024);
    remember(longEmail);
    expect(memo.get("email")).toBeUndefined();
  });
});
