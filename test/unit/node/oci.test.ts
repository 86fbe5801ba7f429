import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryImage, ociArchitecture, ociArchive, tar } from "../../../hack/node/oci";

let dir: string;
beforeEach(() => (dir = mkdtempSync(join(tmpdir(), "oci-test-"))));
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** Unpacks with the system's tar: what we write must be what tar (and containerd) read. */
function untar(archive: Buffer, into = dir): void {
  const file = join(into, "archive.tar");
  writeFileSync(file, archive);
  execFileSync("tar", ["-xf", file, "-C", into]);
  rmSync(file);
}

const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex");

describe("tar", () => {
  it("writes files and directories that tar reads back byte for byte, with their modes", () => {
    const odd = Buffer.alloc(513, 7);
    untar(
      tar([
        { path: "etc/" },
        { path: "tmp/", mode: 0o1777 },
        { path: "bin", data: odd, mode: 0o755 },
        { path: "etc/empty", data: Buffer.alloc(0) },
      ]),
    );
    expect(readFileSync(join(dir, "bin")).equals(odd)).toBe(true);
    expect(statSync(join(dir, "bin")).mode & 0o777).toBe(0o755);
    expect(statSync(join(dir, "tmp")).isDirectory()).toBe(true);
    expect(readFileSync(join(dir, "etc", "empty")).length).toBe(0);
  });

  it("gives the same bytes for the same files (the image digest is stable)", () => {
    const entries = [{ path: "a", data: Buffer.from("x") }];
    expect(tar(entries).equals(tar(entries))).toBe(true);
  });

  it("writes long paths and link targets (pax), symlinks and owners as tar reads them", () => {
    const deep = `${"d".repeat(60)}/${"e".repeat(60)}/`;
    const target = `${deep}${"f".repeat(90)}.js`;
    const listing = (archive: Buffer) => {
      const file = join(dir, "list.tar");
      writeFileSync(file, archive);
      return execFileSync("tar", ["-tvf", file, "--numeric-owner"]).toString();
    };
    const archive = tar([
      { path: "d".repeat(60) + "/" },
      { path: deep },
      { path: target, data: Buffer.from("module.exports = 1;\n"), uid: 65532, gid: 65532 },
      { path: "link", linkname: target },
    ]);
    expect(listing(archive)).toMatch(/65532\/65532 .* d{60}\/e{60}\/f{90}\.js/);
    untar(archive);
    expect(readFileSync(join(dir, target), "utf8")).toBe("module.exports = 1;\n");
    expect(readlinkSync(join(dir, "link"))).toBe(target);
    expect(readFileSync(join(dir, "link"), "utf8")).toBe("module.exports = 1;\n");
  });
});

describe("ociArchive", () => {
  it("is an OCI layout whose index names the image and whose digests match the blobs", () => {
    const binary = Buffer.from("#!/bin/true\n");
    untar(ociArchive(binaryImage("localhost/porch-pepr/probe:abc", binary, "65532")));
    expect(JSON.parse(readFileSync(join(dir, "oci-layout"), "utf8"))).toEqual({
      imageLayoutVersion: "1.0.0",
    });
    const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8"));
    const [entry] = index.manifests;
    expect(entry.annotations["io.containerd.image.name"]).toBe("localhost/porch-pepr/probe:abc");
    expect(entry.platform).toEqual({ architecture: ociArchitecture(), os: "linux" });
    const blob = (digest: string) => {
      const data = readFileSync(join(dir, "blobs", "sha256", digest.replace("sha256:", "")));
      expect(`sha256:${sha(data)}`).toBe(digest);
      return data;
    };
    const manifest = JSON.parse(blob(entry.digest).toString());
    const config = JSON.parse(blob(manifest.config.digest).toString());
    const layer = blob(manifest.layers[0].digest);
    expect(config.rootfs.diff_ids).toEqual([`sha256:${sha(layer)}`]);
    expect(config.config).toMatchObject({ Entrypoint: ["/probe"], User: "65532" });

    const rootfs = mkdtempSync(join(dir, "rootfs-"));
    untar(layer, rootfs);
    expect(readFileSync(join(rootfs, "probe")).equals(binary)).toBe(true);
    expect(statSync(join(rootfs, "probe")).mode & 0o111).toBeTruthy();
  });

  it("maps Node's architecture names to OCI's", () => {
    expect(ociArchitecture("x64")).toBe("amd64");
    expect(ociArchitecture("arm64")).toBe("arm64");
    expect(() => ociArchitecture("mips")).toThrow(/no OCI architecture/);
  });
});
