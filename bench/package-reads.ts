// What a package read costs, for both clients: processes spawned and wall time to read one
// package (a) READS times and (b) each of PACKAGES packages once, on a repository of PACKAGES
// packages of FILES files, against hack/git-server.ts. The refs are fetched once (a long
// readFreshnessMs), so only the reads are measured.
// Run: node hack/run-ts.mjs bench/package-reads.ts [--reads N] [--packages N] [--files N]
import childProcess from "node:child_process";
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { startGitServer } from "../hack/git-server";
import { GitContentStore, type GitClientKind } from "../lib/git";

const exec = promisify(execFile);

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number.parseInt(process.argv[i + 1], 10) : fallback;
}

const READS = arg("reads", 1000);
const PACKAGES = arg("packages", 100);
const FILES = arg("files", 10);

/** Processes spawned through node:child_process since the start (the git CLI's and cat-file's). */
let spawned = 0;
const spawn = childProcess.spawn;
childProcess.spawn = ((...args: Parameters<typeof spawn>) => {
  spawned++;
  if (process.env.BENCH_SPAWNS) console.error(String(args[1]));
  return spawn(...args);
}) as typeof spawn;

async function seed(url: string, tmp: string): Promise<void> {
  const work = join(tmp, "seed");
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "b",
    GIT_AUTHOR_EMAIL: "b@x",
    GIT_COMMITTER_NAME: "b",
    GIT_COMMITTER_EMAIL: "b@x",
  };
  await exec("git", ["init", "--quiet", "--initial-branch=main", work]);
  for (let p = 0; p < PACKAGES; p++) {
    const files: Record<string, string> = {
      Kptfile: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg${p}\n`,
    };
    for (let i = 0; i < FILES - 1; i++)
      files[`resources/cm-${i}.yaml`] =
        `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pkg${p}-${i}\ndata:\n  pad: "${"x".repeat(200)}"\n`;
    for (const [path, content] of Object.entries(files)) {
      const full = join(work, `pkg${p}`, path);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, content);
    }
  }
  await exec("git", ["add", "."], { cwd: work, env });
  await exec("git", ["commit", "--quiet", "-m", "seed"], { cwd: work, env });
  for (let p = 0; p < PACKAGES; p++) await exec("git", ["tag", `pkg${p}/v1`], { cwd: work, env });
  await exec("git", ["push", "--quiet", url, "main", "--tags"], { cwd: work, env });
}

async function measure(
  client: GitClientKind,
  url: string,
  cacheRoot: string,
): Promise<Record<string, string | number>> {
  const store = new GitContentStore({ url }, { cacheRoot, client, readFreshnessMs: 3_600_000 });
  await store.open();
  const run = async (keys: string[]) => {
    const before = spawned;
    const start = performance.now();
    for (const packageName of keys)
      await store.getPackageContent({ packageName, workspaceName: "v1" });
    return { ms: Math.round(performance.now() - start), spawns: spawned - before };
  };
  const distinct = await run([...Array(PACKAGES).keys()].map(p => `pkg${p}`));
  const same = await run(Array<string>(READS).fill("pkg0"));
  store.close();
  return {
    client,
    [`${READS}× one package, ms`]: same.ms,
    [`${READS}× one package, spawns`]: same.spawns,
    [`${PACKAGES} packages once each, ms`]: distinct.ms,
    [`${PACKAGES} packages once each, spawns`]: distinct.spawns,
  };
}

async function main(): Promise<void> {
  process.env.PORCH_PEPR_GIT_ALLOW_HTTP ??= "loopback"; // the local server is http on 127.0.0.1
  const tmp = await mkdtemp(join(tmpdir(), "bench-reads-"));
  const server = await startGitServer({ root: join(tmp, "served") });
  try {
    const { url } = await server.createBareRepo("reads");
    await seed(url, tmp);
    const rows = [];
    for (const client of ["cli", "isomorphic"] as const) {
      const cacheRoot = join(tmp, `cache-${client}`);
      await mkdir(cacheRoot);
      rows.push(await measure(client, url, cacheRoot));
    }
    const cols = Object.keys(rows[0]);
    console.log(`| ${cols.join(" | ")} |\n|${cols.map(() => "---").join("|")}|`);
    for (const r of rows) console.log(`| ${cols.map(c => r[c]).join(" | ")} |`);
  } finally {
    await server.close();
    await rm(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
