import { createHash } from "node:crypto";

// No registry is reachable and there is no docker here: the node's images (the sandbox's pause,
// the smoke test's probe) are single-layer OCI image archives written by these few functions,
// which `ctr images import` reads.

export interface TarEntry {
  /** Path inside the archive, without a leading slash; a trailing slash makes a directory. */
  path: string;
  data?: Buffer;
  mode?: number;
}

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, "0") + "\0";
}

/** A ustar header; mtime, uid and gid are 0 so the same files give the same bytes (and digest). */
function header(entry: TarEntry): Buffer {
  const directory = entry.path.endsWith("/");
  if (Buffer.byteLength(entry.path) > 100) throw new Error(`tar path too long: ${entry.path}`);
  const block = Buffer.alloc(512);
  block.write(entry.path, 0, 100, "utf8");
  block.write(octal(entry.mode ?? (directory ? 0o755 : 0o644), 8), 100, "ascii");
  block.write(octal(0, 8), 108, "ascii");
  block.write(octal(0, 8), 116, "ascii");
  block.write(octal(directory ? 0 : (entry.data?.length ?? 0), 12), 124, "ascii");
  block.write(octal(0, 12), 136, "ascii");
  block.write(directory ? "5" : "0", 156, "ascii");
  block.write("ustar\0" + "00", 257, "ascii");
  // The checksum is computed with its own field read as eight spaces.
  block.write(" ".repeat(8), 148, "ascii");
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(sum.toString(8).padStart(6, "0") + "\0 ", 148, "ascii");
  return block;
}

/** A tar archive of `entries`, in order, ended by two zero blocks. */
export function tar(entries: TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    parts.push(header(entry));
    if (entry.path.endsWith("/") || !entry.data) continue;
    parts.push(entry.data, Buffer.alloc((512 - (entry.data.length % 512)) % 512));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

export interface ImageSpec {
  /** Full reference as the CRI sees it, e.g. `localhost/porch-pepr/pause:1`. */
  name: string;
  /** The image's only layer. */
  files: TarEntry[];
  entrypoint: string[];
  user?: string;
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
  const layer = blob(tar(spec.files));
  const config = blob({
    architecture,
    os: "linux",
    config: {
      Entrypoint: spec.entrypoint,
      Env: ["PATH=/"],
      User: spec.user ?? "",
      WorkingDir: "/",
    },
    rootfs: { type: "layers", diff_ids: [layer.digest] },
  });
  const manifest = blob({
    schemaVersion: 2,
    mediaType: "application/vnd.oci.image.manifest.v1+json",
    config: {
      mediaType: "application/vnd.oci.image.config.v1+json",
      digest: config.digest,
      size: config.size,
    },
    layers: [
      {
        mediaType: "application/vnd.oci.image.layer.v1.tar",
        digest: layer.digest,
        size: layer.size,
      },
    ],
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
  const blobs = [layer, config, manifest];
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
    files: [
      { path: "etc/" },
      { path: "tmp/", mode: 0o1777 },
      { path: base, data: binary, mode: 0o755 },
    ],
  };
}
