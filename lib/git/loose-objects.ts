// Git object encoding (trees, commits) and loose-object writing, so the CLI client creates
// objects without a process per object. The on-disk format is git's stable loose format:
// zlib("<type> <size>\0<body>") at objects/<2 hex>/<38 hex>, named by its SHA-1.
import { createHash, randomBytes } from "node:crypto";
import { access, mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { deflateSync } from "node:zlib";
import type { CommitSpec, Signature, TreeEntry } from "./client";
import { formatSignature } from "./commit-format";

export function encodeTree(entries: TreeEntry[]): Buffer {
  return Buffer.concat(
    entries.flatMap(e => [
      Buffer.from(`${e.mode.replace(/^0+/, "")} ${e.path}\0`, "utf8"),
      Buffer.from(e.oid, "hex"),
    ]),
  );
}

export function parseTree(body: Buffer): TreeEntry[] {
  const entries: TreeEntry[] = [];
  let pos = 0;
  while (pos < body.length) {
    const space = body.indexOf(0x20, pos);
    const nul = body.indexOf(0, space);
    const mode = body.subarray(pos, space).toString("utf8").padStart(6, "0");
    const path = body.subarray(space + 1, nul).toString("utf8");
    const oid = body.subarray(nul + 1, nul + 21).toString("hex");
    const type = mode === "040000" ? "tree" : mode === "160000" ? "commit" : "blob";
    entries.push({ mode, path, oid, type });
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
