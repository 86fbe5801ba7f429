import { randomBytes } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CatFileBatch } from "../../../lib/git/cat-file";
import { ObjectTooLargeError } from "../../../lib/git/content-limits";
import { git } from "./helpers";

jest.setTimeout(60_000);

// The cat-file reader takes each body as it streams (a 6 MiB blob arrives in many chunks),
// skips a body over the read's limit without holding it, and stays in step for the next read.
let dir: string;
let reader: CatFileBatch;
const big = randomBytes(6 * 1024 * 1024);
const oids: Record<string, string> = {};
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "porch-cat-file-"));
  await git(dir, "init", "-q", "--bare", "repo.git");
  for (const [name, body] of Object.entries({ big, small: Buffer.from("small\n") })) {
    await writeFile(join(dir, name), body);
    oids[name] = (
      await git(dir, "--git-dir=repo.git", "hash-object", "-w", join(dir, name))
    ).trim();
  }
  reader = new CatFileBatch(join(dir, "repo.git"), process.env);
});
afterAll(async () => {
  reader.close();
  await rm(dir, { recursive: true, force: true });
});

it("reads a large blob whole and exact", async () => {
  const obj = await reader.read(oids.big);
  expect(obj.type).toBe("blob");
  expect(obj.body.equals(big)).toBe(true);
});

it("refuses a body over the limit unread, and reads the objects queued after it", async () => {
  const limit = { bytes: 1024, says: "over the test's limit" };
  const [tooBig, small, again] = await Promise.allSettled([
    reader.read(oids.big, limit),
    reader.read(oids.small, limit),
    reader.read(oids.big),
  ]);
  expect(tooBig).toMatchObject({ status: "rejected" });
  const error = (tooBig as PromiseRejectedResult).reason as ObjectTooLargeError;
  expect(error).toBeInstanceOf(ObjectTooLargeError);
  expect(error.message).toBe(
    `git object ${oids.big} is ${big.length} bytes, over the test's limit`,
  );
  expect(small).toMatchObject({ status: "fulfilled", value: { body: Buffer.from("small\n") } });
  expect((again as PromiseFulfilledResult<{ body: Buffer }>).value.body.equals(big)).toBe(true);
});

it("says which object is missing and goes on", async () => {
  await expect(reader.read("0".repeat(40))).rejects.toThrow("is missing from the cache");
  expect((await reader.read(oids.small)).body.toString()).toBe("small\n");
});
