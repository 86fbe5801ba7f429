// Measures the two GitClient implementations through the content store against hack/git-server.ts.
// Run: node hack/run-ts.mjs bench/git-clients.ts [--packages N] [--files N] [--rounds N]
// Prints one markdown table (median ms per operation) and the isomorphic-git new-ref push cost
// with and without the thin-pack base hint (refs/remotes/origin/HEAD).
import { execFile } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { startGitServer, type GitServer } from "../hack/git-server";
import { GitContentStore, type GitClientKind } from "../lib/git";
import { IsoGitClient } from "../lib/git/iso-client";
import { buildTree, replaceSubtree } from "../lib/git/tree";

const exec = promisify(execFile);

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number.parseInt(process.argv[i + 1], 10) : fallback;
}

const PACKAGES = arg("packages", 100);
const FILES = arg("files", 10);
const ROUNDS = arg("rounds", 5);

function packageFiles(name: string, round: number | string): Record<string, string> {
  const files: Record<string, string> = {
    Kptfile: `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${name}\n`,
  };
  for (let i = 0; i < FILES - 1; i++) {
    files[`resources/cm-${i}.yaml`] =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}-${i}\ndata:\n  round: "${round}"\n  pad: "${"x".repeat(200)}"\n`;
  }
  return files;
}

/** A repository with PACKAGES packages of FILES files on main, written with plain git. */
async function seed(server: GitServer, tmp: string): Promise<string> {
  const { url } = await server.createBareRepo("bench");
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
    for (const [path, content] of Object.entries(packageFiles(`pkg${p}`, 0))) {
      const full = join(work, "packages", `pkg${p}`, path);
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, content);
    }
  }
  await exec("git", ["add", "."], { cwd: work, env });
  await exec("git", ["commit", "--quiet", "-m", "seed"], { cwd: work, env });
  await exec("git", ["push", "--quiet", url, "main"], { cwd: work, env });
  return url;
}

/** Request bytes received by git-receive-pack (what a client pushes), counted by the server. */
let pushedBytes = 0;
const pushed: Record<string, number[]> = {};

async function time<T>(samples: number[], op: () => Promise<T>, label?: string): Promise<T> {
  const start = performance.now();
  const before = pushedBytes;
  const result = await op();
  samples.push(performance.now() - start);
  if (label !== undefined) (pushed[label] ??= []).push(pushedBytes - before);
  return result;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function benchStore(
  url: string,
  client: GitClientKind,
  cacheRoot: string,
): Promise<Record<string, number>> {
  const s: Record<string, number[]> = {
    clone: [],
    listCold: [],
    listWarm: [],
    draft: [],
    propose: [],
    publish: [],
    content: [],
  };
  const store = new GitContentStore({ url, directory: "packages" }, { cacheRoot, client });
  await time(s.clone, () => store.open());
  await time(s.listCold, () => store.listPackageRevisions());
  for (let r = 0; r < ROUNDS; r++) {
    await time(s.listWarm, () => store.listPackageRevisions());
    const key = { packageName: `pkg${r}`, workspaceName: `${client}-${r}` };
    await time(
      s.draft,
      async () => {
        const draft = await store.createNewDraft(key);
        await draft.updateResources(packageFiles(key.packageName, `${client}-${r}`), "bench edit");
        return draft.closeDraft();
      },
      `${client} draft`,
    );
    await time(s.propose, () => store.updateLifecycle(key, "Proposed"), `${client} propose`);
    await time(s.publish, () => store.updateLifecycle(key, "Published"), `${client} publish`);
    await time(s.content, () => store.getPackageContent(key));
  }
  store.close();
  return Object.fromEntries(Object.entries(s).map(([k, v]) => [k, median(v)]));
}

/** isomorphic-git: push a new branch carrying one changed package, with and without the base hint. */
async function benchIsoPush(
  url: string,
  cacheRoot: string,
  hint: boolean,
  round: number,
): Promise<number> {
  const gitdir = join(cacheRoot, `iso-push-${hint}-${round}`);
  const client = new IsoGitClient({ gitdir, url, branch: "main", thinPackHint: hint });
  await client.init();
  const refs = await client.fetch();
  const head = refs.get("refs/heads/main")!.commit;
  const base = await client.readCommit(head);
  const pkg = await buildTree(client, packageFiles("pkg0", 100 + round));
  const tree = await replaceSubtree(client, base.tree, "packages/pkg0", pkg);
  const sig = {
    name: "b",
    email: "b@x",
    timestamp: Math.floor(Date.now() / 1000),
    timezoneOffset: 0,
  };
  const commit = await client.writeCommit({
    tree,
    parents: [head],
    message: `edit (hint ${hint})`,
    author: sig,
    committer: sig,
  });
  const start = performance.now();
  const before = pushedBytes;
  await client.push([{ ref: `refs/heads/push-test-${hint}-${round}`, oid: commit, expect: null }]);
  (pushed[`iso new branch, hint ${hint ? "on" : "off"}`] ??= []).push(pushedBytes - before);
  return performance.now() - start;
}

async function main(): Promise<void> {
  process.env.PORCH_PEPR_GIT_ALLOW_HTTP ??= "loopback"; // the local server is http on 127.0.0.1
  const tmp = await mkdtemp(join(tmpdir(), "porch-bench-"));
  const server = await startGitServer({
    root: join(tmp, "served"),
    onRequest: r => {
      if (r.method === "POST" && r.path.endsWith("/git-receive-pack"))
        pushedBytes += r.requestBytes;
    },
  });
  try {
    const url = await seed(server, tmp);
    const rows: [string, Record<string, number>][] = [];
    for (const client of ["cli", "isomorphic"] as const) {
      rows.push([client, await benchStore(url, client, join(tmp, `cache-${client}`))]);
    }
    const ops = Object.keys(rows[0][1]);
    const git = (await exec("git", ["--version"])).stdout.trim();
    console.log(
      `\n${PACKAGES} packages x ${FILES} files on main, ${ROUNDS} rounds, median ms (node ${process.version}, ${git})\n`,
    );
    console.log(`| client | ${ops.join(" | ")} |`);
    console.log(`|---|${ops.map(() => "---:").join("|")}|`);
    for (const [client, values] of rows)
      console.log(`| ${client} | ${ops.map(o => values[o].toFixed(0)).join(" | ")} |`);
    const withHint: number[] = [];
    const without: number[] = [];
    for (let r = 0; r < 3; r++) {
      withHint.push(await benchIsoPush(url, join(tmp, "iso-push"), true, r));
      without.push(await benchIsoPush(url, join(tmp, "iso-push"), false, r));
    }
    console.log(
      `\nisomorphic-git push of a new branch with one changed package: ${median(withHint).toFixed(0)} ms with the base hint, ${median(without).toFixed(0)} ms without`,
    );
    console.log(
      `\nbytes pushed (median): ${Object.entries(pushed)
        .map(([k, v]) => `${k} ${median(v)}`)
        .join(", ")}`,
    );
  } finally {
    await server.close();
    await rm(tmp, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
