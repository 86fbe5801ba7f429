// What one isomorphic-git fetch costs the process: peak RSS growth per byte of pack, the fetch
// memory charged, and the event loop's longest block (perf_hooks.monitorEventLoopDelay).
// Run: node hack/run-ts.mjs bench/iso-fetch-memory.ts [--sizes 8,19,30,37]
// Each size (MiB of incompressible 8 MiB blobs in one commit) is fetched in a fresh process,
// after a first fetch of 1 MiB warmed the code, from hack/git-server.ts in this process; with
// --reads the figure includes the reads after the fetch (they load the pack into the pack cache,
// which has its own budget).
import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { promisify } from "node:util";
import { startGitServer } from "../hack/git-server";
import { FairBudget } from "../lib/controller/fair-budget";
import { IsoGitClient } from "../lib/git/iso-client";

const exec = promisify(execFile);
const MiB = 1024 * 1024;
const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: "b",
  GIT_AUTHOR_EMAIL: "b@b",
  GIT_COMMITTER_NAME: "b",
  GIT_COMMITTER_EMAIL: "b@b",
};

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
}

/** One fetch of `url`, in this (fresh) process; prints its figures as one JSON line. */
async function measure(url: string, warmUrl: string, reads: boolean): Promise<void> {
  if (!reads)
    (IsoGitClient.prototype as unknown as { peel: (oid: string) => Promise<string> }).peel = oid =>
      Promise.resolve(oid);
  let charged = 0;
  const budget = new FairBudget(1024 * MiB, 1024 * MiB, 60_000, u => {
    charged = Math.max(charged, u.taken);
  });
  const fetchInto = async (from: string) => {
    const gitdir = await mkdtemp(join(tmpdir(), "iso-fetch-memory-"));
    const client = new IsoGitClient({ gitdir, url: from, branch: "main", fetchMemory: budget });
    await client.init();
    await client.fetch();
    client.close();
    return gitdir;
  };
  await rm(await fetchInto(warmUrl), { recursive: true });
  charged = 0;
  (globalThis as { gc?: () => void }).gc?.();
  const before = process.memoryUsage().rss;
  const maxBefore = process.resourceUsage().maxRSS * 1024;
  let sampled = before;
  const sampler = setInterval(() => {
    sampled = Math.max(sampled, process.memoryUsage().rss);
  }, 2);
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const gitdir = await fetchInto(url);
  loop.disable();
  clearInterval(sampler);
  const maxAfter = process.resourceUsage().maxRSS * 1024;
  // maxRSS misses nothing but may date from the warm-up; the samples miss a block's peak.
  const peak = maxAfter > maxBefore ? maxAfter : sampled;
  const packDir = join(gitdir, "objects", "pack");
  let pack = 0;
  for (const name of await readdir(packDir))
    if (name.endsWith(".pack")) pack += (await stat(join(packDir, name))).size;
  await rm(gitdir, { recursive: true });
  console.log(
    JSON.stringify({
      packMiB: +(pack / MiB).toFixed(1),
      rssGrowthMB: Math.round((peak - before) / 1e6),
      growthPerByte: +((peak - before) / pack).toFixed(2),
      chargedPerByte: +(charged / pack).toFixed(2),
      loopMaxBlockMs: Math.round(loop.max / 1e6),
    }),
  );
}

async function main(): Promise<void> {
  if (process.argv[2] === "--measure") {
    await measure(process.argv[3], process.argv[4], process.argv.includes("--reads"));
    return;
  }
  const sizes = arg("sizes", "8,19,30,37").split(",").map(Number);
  const root = await mkdtemp(join(tmpdir(), "iso-fetch-memory-served-"));
  const server = await startGitServer({ root: join(root, "served") });
  try {
    const urls = new Map<number, string>();
    // 1 MiB warms the code without raising the process's peak past what a measured fetch makes.
    for (const size of [...new Set([1, ...sizes])]) {
      const { url, path } = await server.createBareRepo(`r${size}`);
      const work = join(root, `work${size}`);
      await exec("git", ["clone", "-q", path, work], { env: GIT_ENV });
      for (let left = size * MiB, i = 0; left > 0; left -= 8 * MiB, i++)
        await writeFile(join(work, `blob${i}.bin`), randomBytes(Math.min(8 * MiB, left)));
      await exec("git", ["add", "."], { cwd: work, env: GIT_ENV });
      await exec("git", ["commit", "-qm", "blobs"], { cwd: work, env: GIT_ENV });
      await exec("git", ["push", "-q", "origin", "HEAD:main"], { cwd: work, env: GIT_ENV });
      // Packed once here, so upload-pack sends stored objects instead of compressing them again.
      await exec("git", ["-C", path, "repack", "-adq"], { env: GIT_ENV });
      urls.set(size, url);
    }
    for (const size of sizes) {
      const args = ["--expose-gc", process.argv[1], "--measure", urls.get(size)!, urls.get(1)!];
      if (process.argv.includes("--reads")) args.push("--reads");
      const child = spawn(process.execPath, args, {
        env: { ...process.env, PORCH_PEPR_GIT_ALLOW_HTTP: "loopback" },
        stdio: ["ignore", "pipe", "inherit"],
      });
      let out = "";
      child.stdout.on("data", (d: Buffer) => (out += d.toString()));
      const code = await new Promise<number | null>(resolve => child.on("exit", resolve));
      console.log(`${size} MiB: ${code === 0 ? out.trim() : `failed (exit ${code})`}`);
    }
  } finally {
    await server.close();
    await rm(root, { recursive: true, force: true });
  }
}

void main();
