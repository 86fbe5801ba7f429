// The isomorphic-git client's push reads only the paths a commit changed, not the whole tree
// (isomorphic-git's own push walked the pushed tree and the base branch's tree): counted as the
// object reads isomorphic-git makes (each packed-object read lists objects/pack), and checked
// with git fsck on the server that what was sent is complete.
import fs from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { IsoGitClient } from "../../../lib/git/iso-client";
import { statusReports } from "../../../lib/git/iso-send-pack";
import { buildTree, replaceSubtree } from "../../../lib/git/tree";
import {
  git,
  lsRemote,
  pkgFiles,
  startFixture,
  workClone,
  writeFiles,
  type Fixture,
} from "./helpers";

jest.setTimeout(60_000);

let fx: Fixture;
beforeAll(async () => {
  fx = await startFixture();
});
afterAll(() => fx.close());

const pkt = (s: string) => `${(Buffer.byteLength(s) + 4).toString(16).padStart(4, "0")}${s}`;

const PACKAGES = 150;
const sig = { name: "t", email: "t@t", timestamp: 1_700_000_000, timezoneOffset: 0 };

/**
 * Object reads isomorphic-git makes while `op` runs: a loose object is a file read, and every
 * packed-object read lists objects/pack first.
 */
async function objectReads(op: () => Promise<void>): Promise<number> {
  const { readdir, readFile } = fs.promises;
  let reads = 0;
  const count = (path: unknown, pattern: RegExp) => {
    if (pattern.test(String(path))) reads++;
  };
  const spies = [
    jest.spyOn(fs.promises, "readdir").mockImplementation(((path: fs.PathLike, o: never) => {
      count(path, /objects\/pack$/);
      return readdir(path, o);
    }) as typeof readdir),
    jest.spyOn(fs.promises, "readFile").mockImplementation(((path: fs.PathLike, o: never) => {
      count(path, /objects\/[0-9a-f]{2}\/[0-9a-f]{38}$/);
      return readFile(path, o);
    }) as typeof readFile),
  ];
  try {
    await op();
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  return reads;
}

describe("IsoGitClient push", () => {
  it("reads only the changed package's path, and the server has every object it needs", async () => {
    const name = "wide-push";
    const url = await fx.repo(name);
    const work = await workClone(fx, url);
    const files: Record<string, string> = {};
    for (let p = 0; p < PACKAGES; p++)
      for (const [path, content] of Object.entries(pkgFiles(`pkg${p}`)))
        files[`packages/pkg${p}/${path}`] = content;
    await writeFiles(work, files);
    await git(work, "add", ".");
    await git(work, "commit", "-qm", "seed");
    await git(work, "push", "-q", "origin", "HEAD:main");

    const client = new IsoGitClient({ gitdir: await fx.cacheRoot(), url, branch: "main" });
    await client.init();
    const head = (await client.fetch()).get("refs/heads/main")!.commit;
    const edit = async (parent: string, value: string) => {
      const base = await client.readCommit(parent);
      const pkg = await buildTree(client, pkgFiles("pkg7", value));
      const tree = await replaceSubtree(client, base.tree, "packages/pkg7", pkg);
      const message = `edit ${value}`;
      return client.writeCommit({ tree, parents: [parent], message, author: sig, committer: sig });
    };
    const one = await edit(head, "2");
    const two = await edit(one, "3");
    const draft = "refs/heads/drafts/pkg7/ws";
    const newBranch = await objectReads(() =>
      client.push([{ ref: draft, oid: two, expect: null }]),
    );
    const three = await edit(two, "4");
    const update = await objectReads(() => client.push([{ ref: draft, oid: three, expect: two }]));
    const tag = await objectReads(() =>
      client.push([{ ref: "refs/tags/pkg7/v1", oid: three, expect: null }]),
    );
    // A full walk reads every one of the PACKAGES trees at least once.
    expect(Math.max(newBranch, update, tag)).toBeLessThan(PACKAGES / 3);

    const refs = await lsRemote(url);
    expect(refs.get(draft)).toBe(three);
    expect(refs.get("refs/tags/pkg7/v1")).toBe(three);
    await git(join(fx.server.root, `${name}.git`), "fsck", "--strict", "--no-dangling");
    const check = await workClone(fx, url);
    await git(check, "checkout", "-q", "pkg7/v1");
    expect(fs.readFileSync(join(check, "packages/pkg7/configmap.yaml"), "utf8")).toContain('"4"');
  });
});

/** A proxy to the fixture's server that answers every push with `answer` (status 200). */
async function pushAnswering(answer: Buffer): Promise<{ url: string; close(): void }> {
  const server = createServer((req, res) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      if (req.method === "POST" && req.url?.endsWith("/git-receive-pack")) {
        res.writeHead(200, { "content-type": "application/x-git-receive-pack-result" });
        res.end(answer);
        return;
      }
      const up = await fetch(`${fx.server.url}${req.url}`, {
        method: req.method,
        headers: { "content-type": req.headers["content-type"] ?? "" },
        ...(req.method === "POST" && { body: Buffer.concat(chunks) }),
      });
      res.writeHead(up.status, { "content-type": up.headers.get("content-type") ?? "" });
      res.end(Buffer.from(await up.arrayBuffer()));
    })();
  });
  await new Promise<void>(ok => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

describe("IsoGitClient push to a server that answers no status report", () => {
  it.each([
    ["a fatal error on side band 3", `${pkt("\x03secret words\n")}0000`],
    ["no status report", `${pkt("\x01secret words\n")}0000`],
    // 120 KB of 1-byte progress lines: before, read whole, demultiplexed and parsed once per ref.
    [
      "an answer of more than 66560 bytes",
      `${pkt("\x01secret words\n")}${"0006\x02s".repeat(20_000)}0000`,
    ],
    [
      "a status report of more than 3 lines",
      `${pkt(`\x01${pkt("unpack ok\n")}${pkt("ok refs/heads/secret\n").repeat(500)}0000`)}0000`,
    ],
  ])("fails as Transport (%s) without quoting the server", async (what, answer) => {
    const name = `answering-${what.length}`;
    await fx.repo(name);
    const work = await workClone(fx, `${fx.server.url}/${name}.git`);
    await writeFiles(work, pkgFiles("a"));
    await git(work, "add", ".");
    await git(work, "commit", "-qm", "seed");
    await git(work, "push", "-q", "origin", "HEAD:main");
    const proxy = await pushAnswering(Buffer.from(answer, "latin1"));
    try {
      const url = `${proxy.url}/${name}.git`;
      const client = new IsoGitClient({ gitdir: await fx.cacheRoot(), url, branch: "main" });
      await client.init();
      const head = (await client.fetch()).get("refs/heads/main")!.commit;
      const { tree } = await client.readCommit(head);
      const oid = await client.writeCommit({
        tree,
        parents: [head],
        message: "m",
        author: sig,
        committer: sig,
      });
      const error = await client
        .push([{ ref: "refs/heads/drafts/a/b", oid, expect: null }])
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ code: "Transport" });
      expect((error as Error).message).toContain(
        `did not answer as a git smart HTTP server (${what})`,
      );
      expect((error as Error).message).not.toContain("secret");
    } finally {
      proxy.close();
    }
  });
});

describe("statusReports", () => {
  const report = (...lines: string[]) => Buffer.from(`${lines.map(pkt).join("")}0000`);
  const ref = "refs/heads/drafts/a/b";
  const other = "refs/heads/other";

  it("reads the server's verdict on each ref sent, in one walk", () => {
    const verdicts = statusReports(
      report("unpack ok\n", `ok ${ref}\n`, `ng ${other} failed to lock\n`),
      [ref, other],
    );
    expect([...verdicts]).toEqual([
      [ref, undefined],
      [other, { stage: "ref", says: `ng ${other} failed to lock` }],
    ]);
    expect(
      statusReports(report("unpack index-pack failed\x1b[2J\n", `ng ${ref} x\n`), [ref]).get(ref),
    ).toEqual({ stage: "unpack", says: "unpack index-pack failed [2J" });
  });

  it("refuses a report that says nothing of a ref, is no report, or has more lines than refs", () => {
    expect(() => statusReports(report("unpack ok\n", `ok ${other}\n`), [ref])).toThrow(
      /names no such ref/,
    );
    expect(() => statusReports(report("ok\n"), [ref])).toThrow(/no status report/);
    expect(() => statusReports(Buffer.from("garbage"), [ref])).toThrow(/no status report/);
    // A line per ref, the unpack status and the flush: a flood stops at the first line past them.
    const flood = report("unpack ok\n", ...Array.from({ length: 100_000 }, () => `ok ${ref}\n`));
    expect(() => statusReports(flood, [ref])).toThrow(/a status report of more than 3 lines/);
  });
});
