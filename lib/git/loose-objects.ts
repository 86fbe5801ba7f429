// Git object encoding (trees, commits) and loose-object writing, so the CLI client creates
// objects without a process per object. The on-disk format is git's stable loose format:
// zlib("<type> <size>\0<body>") at objects/<2 hex>/<38 hex>, named by its SHA-1.
import { createHash, randomBytes } from "node:crypto";
import { access, mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import type { CommitSpec, Signature, TreeEntry } from "./client";
import { formatSignature } from "./commit-format";
import { GitStoreError } from "./errors";
import { DEFAULT_CONTENT_LIMITS, treeTooManyEntries } from "./content-limits";

export function encodeTree(entries: TreeEntry[]): Buffer {
  return Buffer.concat(
    entries.flatMap(e => [
      Buffer.from(`${e.mode.replace(/^0+/, "")} ${e.path}\0`, "utf8"),
      Buffer.from(e.oid, "hex"),
    ]),
  );
}

/** Entry modes git writes: a file, an executable, a symlink, a directory, a submodule. */
const TREE_MODES = new Set(["100644", "100755", "120000", "040000", "160000"]);

/** The NUL-ended names of a tree object, counted up to `most` + 1 without reading an entry. */
function countEntries(body: Buffer, most: number): number {
  let n = 0;
  // Each name ends in a NUL followed by a 20-byte oid, which may hold NULs of its own.
  for (let nul = body.indexOf(0); nul >= 0 && n <= most; nul = body.indexOf(0, nul + 21)) n++;
  return n;
}

/**
 * The entries of a tree object ("<mode> <name>\0<20-byte oid>" each). The object comes from a
 * tenant's server (a fetch does not check trees): anything else in it, or a name git would not
 * write ("", ".", "..", one with "/"), is refused, naming the tree, rather than read on. More
 * than `maxEntries` entries are refused ContentTooLarge after counting them, before any is built:
 * a 25 MB tree of short names is 900,000 entries, two seconds of the event loop to build.
 */
export function parseTree(
  body: Buffer,
  oid = "(unnamed)",
  maxEntries = DEFAULT_CONTENT_LIMITS.maxTreeEntries,
): TreeEntry[] {
  if (countEntries(body, maxEntries) > maxEntries)
    throw treeTooManyEntries(oid, { maxTreeEntries: maxEntries });
  const entries: TreeEntry[] = [];
  const malformed = (why: string) =>
    new GitStoreError("Transport", `git tree ${oid} is malformed: ${why}`);
  let pos = 0;
  while (pos < body.length) {
    const space = body.indexOf(0x20, pos);
    const nul = space < 0 ? -1 : body.indexOf(0, space);
    if (nul < 0 || nul + 21 > body.length) throw malformed(`entry at byte ${pos} is cut short`);
    const written = body.subarray(pos, space).toString("latin1");
    const mode = written.padStart(6, "0");
    // Old gits wrote 100664 and friends for files; git reads them as files (kept as written).
    const file = /^100[0-7]{3}$/.test(written);
    if (!TREE_MODES.has(mode) && !file)
      throw malformed(`entry at byte ${pos} has mode ${JSON.stringify(written.slice(0, 16))}`);
    const path = body.subarray(space + 1, nul).toString("utf8");
    if (path === "" || path === "." || path === ".." || path.includes("/"))
      throw malformed(`entry at byte ${pos} is named ${JSON.stringify(path.slice(0, 100))}`);
    const type = mode === "040000" ? "tree" : mode === "160000" ? "commit" : "blob";
    entries.push({
      mode,
      path,
      oid: body.subarray(nul + 1, nul + 21).toString("hex"),
      type,
    });
    pos = nul + 21;
  }
  return entries;
}

function signatureLine(sig: Signature): string {
  return `${sig.name} <${sig.email}> ${formatSignature(sig).date}`;
}

export function encodeCommit(spec: CommitSpec): Buffer {
  const head = [
    `tree ${spec.tree}`,
    ...spec.parents.map(p => `parent ${p}`),
    `author ${signatureLine(spec.author)}`,
    `committer ${signatureLine(spec.committer)}`,
  ];
  return Buffer.from(`${head.join("\n")}\n\n${spec.message}`, "utf8");
}

export function objectId(type: string, body: Buffer): string {
  return createHash("sha1").update(`${type} ${body.length}\0`).update(body).digest("hex");
}

/** Writes the object unless present; returns its id. Temp file + rename keeps readers safe. */
export async function writeLooseObject(
  gitdir: string,
  type: string,
  body: Buffer,
): Promise<string> {
  const oid = objectId(type, body);
  const dir = join(gitdir, "objects", oid.slice(0, 2));
  const path = join(dir, oid.slice(2));
  try {
    await access(path);
    return oid;
  } catch {
    // not there yet (a packed copy is harmless: git prefers either)
  }
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `tmp_obj_${randomBytes(6).toString("hex")}`);
  await writeFile(
    tmp,
    deflateSync(Buffer.concat([Buffer.from(`${type} ${body.length}\0`), body])),
    { mode: 0o444 },
  );
  await rename(tmp, path);
  return oid;
}
