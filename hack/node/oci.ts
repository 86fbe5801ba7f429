import { createHash } from "node:crypto";
import { lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";

// No registry is reachable and there is no docker here: the node's images (the sandbox's pause,
// the smoke test's probe, the Pepr controller image of hack/deploy/) are OCI image archives
// written by these few functions, which `ctr images import` reads.

export interface TarEntry {
  /** Path inside the archive, without a leading slash; a trailing slash makes a directory. */
  path: string;
  data?: Buffer;
  mode?: number;
  /** Owner; 0 (root) unless set. */
  uid?: number;
  gid?: number;
  /** Makes the entry a symbolic link to this target. */
  linkname?: string;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

/** One ustar header block; mtime is 0 so the same files give the same bytes (and digest). */
function headerBlock(
  name: string,
  type: string,
  size: number,
  mode: number,
  uid: number,
  gid: number,
  linkname = "",
): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100, "utf8");
  block.write(octal(mode, 8), 100, "ascii");
  block.write(octal(uid, 8), 108, "ascii");
  block.write(octal(gid, 8), 116, "ascii");
  block.write(octal(size, 12), 124, "ascii");
  block.write(octal(0, 12), 136, "ascii");
  block.write(type, 156, "ascii");
  block.write(linkname, 157, 100, "utf8");
  block.write("ustar\0" + "00", 257, "ascii");
  // The checksum is computed with its own field read as eight spaces.
  block.write(" ".repeat(8), 148, "ascii");
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(sum.toString(8).padStart(6, "0") + "\0 ", 148, "ascii");
  return block;
}

/** A pax record "<len> key=value\n", whose length counts its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(body) + 1;
  while (String(length).length + Buffer.byteLength(body) !== length) length += 1;
  return `${length}${body}`;
}

const padding = (size: number) => Buffer.alloc((512 - (size % 512)) % 512);

/**
 * An entry's blocks: a pax extended header first when its path or link target does not fit
 * ustar's 100 bytes (node_modules has such paths), then its ustar header.
 */
function header(entry: TarEntry): Buffer[] {
  const directory = entry.path.endsWith("/");
  const link = entry.linkname !== undefined;
  const type = directory ? "5" : link ? "2" : "0";
  const size = directory || link ? 0 : (entry.data?.length ?? 0);
  const mode = entry.mode ?? (directory ? 0o755 : link ? 0o777 : 0o644);
  const uid = entry.uid ?? 0;
  const gid = entry.gid ?? 0;
  const records: string[] = [];
  if (Buffer.byteLength(entry.path) > 100) records.push(paxRecord("path", entry.path));
  if (link && Buffer.byteLength(entry.linkname!) > 100) {
    records.push(paxRecord("linkpath", entry.linkname!));
  }
  const blocks: Buffer[] = [];
  if (records.length > 0) {
    const pax = Buffer.from(records.join(""));
    const name = `PaxHeaders/${createHash("sha256").update(entry.path).digest("hex").slice(0, 40)}`;
    blocks.push(headerBlock(name, "x", pax.length, 0o644, 0, 0), pax, padding(pax.length));
  }
  const short = (value: string) => Buffer.from(value).subarray(0, 100).toString("utf8");
  blocks.push(
    headerBlock(short(entry.path), type, size, mode, uid, gid, short(entry.linkname ?? "")),
  );
  return blocks;
}

/** A tar archive of `entries`, in order, ended by two zero blocks. */
export function tar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(...header(entry));
    if (entry.path.endsWith("/") || entry.linkname !== undefined || !entry.data) continue;
    parts.push(entry.data, padding(entry.data.length));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export interface ImageSpec {
  /** Full reference as the CRI sees it, e.g. `localhost/porch-pepr/pause:1`. */
  name: string;
  /** The image's layers, bottom first (a one-binary image has one). */
  layers: TarEntry[][];
  entrypoint: string[];
  user?: string;
  /** Environment; PATH=/ unless set. */
  env?: string[];
  workingDir?: string;
}

interface Blob {
  digest: string;
  size: number;
  data: Buffer;
}

function blob(data: Buffer | object): Blob {
  const bytes = Buffer.isBuffer(data) ? data : Buffer.from(JSON.stringify(data));
  const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
  return { digest, size: bytes.length, data: bytes };
}

/** The platform Go built the binaries for: this machine's. */
export function ociArchitecture(arch: string = process.arch): string {
  const names: Record<string, string> = {
    x64: "amd64",
    arm64: "arm64",
    arm: "arm",
    s390x: "s390x",
  };
  const name = names[arch];
  if (!name) throw new Error(`no OCI architecture known for ${arch}`);
  return name;
}

/**
 * An OCI image layout as a tar archive: index.json names the image with the annotation
 * containerd's importer reads (io.containerd.image.name), so the import needs no flags.
 */
export function ociArchive(spec: ImageSpec): Buffer {
  const architecture = ociArchitecture();
  const layers = spec.layers.map(files => blob(tar(files)));
  const config = blob({
    architecture,
    os: "linux",
    config: {
      Entrypoint: spec.entrypoint,
      Env: spec.env ?? ["PATH=/"],
      User: spec.user ?? "",
      WorkingDir: spec.workingDir ?? "/",
    },
    rootfs: { type: "layers", diff_ids: layers.map(layer => layer.digest) },
  });
  const manifest = blob({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: config.digest,
      size: config.size,
    },
    layers: layers.map(layer => ({
      mediaType: "application/vnd.oci.image.layer.v1.tar",
      digest: layer.digest,
      size: layer.size,
    })),
  });
  const tag = spec.name.slice(spec.name.lastIndexOf(":") + 1);
  const index = {
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.index.v1+json",
    manifests: [
      {
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        digest: manifest.digest,
        size: manifest.size,
        platform: { architecture, os: "linux" },
        annotations: {
          "io.containerd.image.name": spec.name,
          "org.opencontainers.image.ref.name": tag,
        },
      },
    ],
  };
  const blobs = [...layers, config, manifest];
  return tar([
    { path: "oci-layout", data: Buffer.from(JSON.stringify({ imageLayoutVersion: "1.0.0" })) },
    { path: "index.json", data: Buffer.from(JSON.stringify(index)) },
    { path: "blobs/" },
    { path: "blobs/sha256/" },
    ...blobs.map(b => ({ path: `blobs/sha256/${b.digest.slice("sha256:".length)}`, data: b.data })),
  ]);
}

/** A one-binary image: the binary at /<name>, plus the directories a container expects. */
export function binaryImage(name: string, binary: Buffer, user?: string): ImageSpec {
  const base = name.slice(name.lastIndexOf("/") + 1).split(":")[0];
  return {
    name,
    entrypoint: [`/${base}`],
    user,
    layers: [
      [{ path: "etc/" }, { path: "tmp/", mode: 0o1777 }, { path: base, data: binary, mode: 0o755 }],
    ],
  };
}

/**
 * The tree under `dir` as entries under `prefix` (e.g. "app/node_modules/"), sorted by name so
 * the same tree gives the same layer: directories, regular files with their modes, symlinks.
 * Owned by root unless `owner` is given.
 */
export function directoryEntries(
  dir: string,
  prefix: string,
  owner: { uid: number; gid: number } = { uid: 0, gid: 0 },
): TarEntry[] {
  const entries: TarEntry[] = [];
  const walk = (from: string, at: string) => {
    const names = readdirSync(from).sort();
    for (const name of names) {
      const path = join(from, name);
      const stat = lstatSync(path);
      const mode = stat.mode & 0o7777;
      if (stat.isDirectory()) {
        entries.push({ path: `${at}${name}/`, mode, ...owner });
        walk(path, `${at}${name}/`);
      } else if (stat.isSymbolicLink()) {
        entries.push({ path: `${at}${name}`, linkname: readlinkSync(path), ...owner });
      } else if (stat.isFile()) {
        entries.push({ path: `${at}${name}`, data: readFileSync(path), mode, ...owner });
      } else {
        throw new Error(`${path}: only directories, files and symlinks go into an image`);
      }
    }
  };
  walk(dir, prefix);
  return entries;
}
