// The huge-blob attack's content: a tenant's git repository whose tag `<pkg>/v1` holds a
// package with one large text file of deterministic, barely compressible characters (mulberry32
// from a fixed seed, so every run pushes the same pack; 64 symbols, so it is valid UTF-8 and only
// its size is at stake), and whose main branch holds only a README.
import { execFileSync } from "node:child_process";
import { createWriteStream, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { once } from "node:events";
import { seededRandom } from "./prng";

const SEED = 96;
const CHUNK = 1 << 20;
const SYMBOLS = Buffer.from("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/");
/** Characters per line, the last of each a newline (a text file, as a tenant's would be). */
const LINE = 64;

/** Writes `mib` MiB of the seeded characters to `path`, one MiB at a time. */
export async function writeBlob(path: string, mib: number): Promise<void> {
  const random = seededRandom(SEED);
  const out = createWriteStream(path);
  for (let i = 0; i < mib; i++) {
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (let at = 0; at < CHUNK; at++)
      chunk[at] = at % LINE === LINE - 1 ? 10 : SYMBOLS[Math.floor(random() * 64)];
    if (!out.write(chunk)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/**
 * Pushes to `url` a main branch with a README and the tag `<pkg>/v1` on a commit adding
 * `<pkg>/Kptfile` and `<pkg>/blob.txt` (`mib` MiB), made with plain git in `workDir`.
 */
export async function pushHugeBlob(
  url: string,
  pkg: string,
  mib: number,
  workDir: string,
): Promise<void> {
  mkdirSync(workDir, { recursive: true });
  const git = (...args: string[]) =>
    execFileSync(
      "git",
      ["-C", workDir, "-c", "user.name=tenant", "-c", "user.email=t@x", ...args],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
  git("init", "-q", "-b", "main");
  writeFileSync(join(workDir, "README.md"), "a tenant's repository\n");
  git("add", "-A");
  git("commit", "-qm", "readme");
  git("push", "-q", url, "main");
  mkdirSync(join(workDir, pkg));
  writeFileSync(
    join(workDir, pkg, "Kptfile"),
    `apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: ${pkg}\n  annotations:\n    config.kubernetes.io/local-config: "true"\n`,
  );
  await writeBlob(join(workDir, pkg, "blob.txt"), mib);
  git("add", "-A");
  git("commit", "-qm", `${pkg} with a ${mib} MiB file`);
  git("tag", `${pkg}/v1`);
  git("push", "-q", url, `refs/tags/${pkg}/v1`);
}
