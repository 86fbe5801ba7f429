import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { git, lsRemote, startFixture, workClone, writeFiles, type Fixture } from "./helpers";

jest.setTimeout(60_000);

let anon: Fixture;
let basic: Fixture;
let bearer: Fixture;
beforeAll(async () => {
  anon = await startFixture();
  basic = await startFixture({ user: "u", password: "p4ss" });
  bearer = await startFixture({ token: "t0ken" });
});
afterAll(async () => {
  await Promise.all([anon.close(), basic.close(), bearer.close()]);
});

const infoRefs = (url: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/info/refs?service=git-upload-pack`, { headers });

describe("hack/git-server.ts", () => {
  it("serves clone, push and fetch of bare repositories through git http-backend", async () => {
    const url = await anon.repo("served", "trunk");
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/served\.git$/);
    const work = await workClone(anon, url);
    // Enough content that git gzips its request bodies.
    await writeFiles(
      work,
      Object.fromEntries(Array.from({ length: 200 }, (_, i) => [`f${i}.txt`, `${i}\n`.repeat(50)])),
    );
    await git(work, "add", ".");
    await git(work, "commit", "-qm", "first");
    await git(work, "push", "-q", "origin", "HEAD:trunk", "HEAD:refs/tags/t/v1");
    const refs = await lsRemote(url);
    expect(refs.get("refs/heads/trunk")).toBe((await git(work, "rev-parse", "HEAD")).trim());
    expect(refs.get("HEAD")).toBe(refs.get("refs/heads/trunk"));
    const again = await workClone(anon, url);
    expect((await git(again, "ls-files")).split("\n").filter(l => l)).toHaveLength(200);
  });

  it("passes the CGI status through (unknown repository → 404)", async () => {
    expect((await infoRefs(`${anon.server.url}/missing.git`)).status).toBe(404);
  });

  it.each([
    ["no credentials", 401, {}],
    ["wrong password", 401, { Authorization: `Basic ${Buffer.from("u:nope").toString("base64")}` }],
    ["right password", 200, { Authorization: `Basic ${Buffer.from("u:p4ss").toString("base64")}` }],
  ])("basic auth: %s → %d", async (_label, status, headers) => {
    const url = await basic.repo();
    const res = await infoRefs(url, headers);
    expect(res.status).toBe(status);
    if (status === 401) expect(res.headers.get("www-authenticate")).toBe('Basic realm="git"');
  });

  it("bearer auth accepts only the token", async () => {
    const url = await bearer.repo();
    expect((await infoRefs(url, { Authorization: "Bearer nope" })).status).toBe(401);
    expect((await infoRefs(url, { Authorization: "Bearer t0ken" })).status).toBe(200);
    await expect(lsRemote(url)).rejects.toThrow();
  });

  it("runs as a CLI that prints its URL as one JSON line", async () => {
    const root = await mkdtemp(join(tmpdir(), "git-server-cli-"));
    const child = spawn(
      process.execPath,
      [
        "hack/run-ts.mjs",
        "hack/git-server.ts",
        "--root",
        root,
        "--port",
        "0",
        "--user",
        "u",
        "--password",
        "p4ss",
      ],
      {
        stdio: ["ignore", "pipe", "inherit"],
      },
    );
    try {
      const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
      const { url } = JSON.parse(line) as { url: string };
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await infoRefs(`${url}/x.git`)).status).toBe(401);
      expect(
        (
          await infoRefs(`${url}/x.git`, {
            Authorization: `Basic ${Buffer.from("u:p4ss").toString("base64")}`,
          })
        ).status,
      ).toBe(404);
    } finally {
      child.kill("SIGTERM");
      await once(child, "exit");
      await rm(root, { recursive: true, force: true });
    }
  });
});
