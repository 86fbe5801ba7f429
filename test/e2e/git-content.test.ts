import http from "node:http";
import type { AddressInfo } from "node:net";
import { createGitRepository, kptfile, pushWithGit, registerRepository } from "../support/git";
import { createNamespace, deleteNamespace, getJson } from "../support/kubectl";
import { eventually } from "../support/wait";

// Git content over the default per-file limit (1 MiB) or not UTF-8, on tags of a tenant's
// repository: each such revision says so naming the file and the limit, the other packages
// mirror with their files, and no file is rewritten.
interface Conditioned {
  status?: { conditions?: { type: string; status: string; reason: string; message: string }[] };
}
let ns: string;
beforeAll(() => {
  ns = createNamespace("e2e-content");
});
afterAll(() => deleteNamespace(ns));

const conditionOf = (kind: string, name: string, type: string) =>
  getJson<Conditioned>(kind, name, ns)?.status?.conditions?.find(c => c.type === type);
const resources = (name: string) =>
  getJson<{ spec: { resources: Record<string, string> } }>("packagerevisionresources", name, ns)
    ?.spec.resources;

it("mirrors a revision over the file limit or not UTF-8 with a condition naming the file, and the rest with their files", async () => {
  const url = await createGitRepository("content");
  pushWithGit(
    url,
    {
      "ok/Kptfile": kptfile("ok"),
      "ok/cm.yaml": "kind: ConfigMap # caf\u00e9\n",
      "big/Kptfile": kptfile("big"),
      "big/data/big.bin": Buffer.alloc(1024 * 1024 + 1, "a"),
      "bin/Kptfile": kptfile("bin"),
      "bin/blob.bin": Buffer.from("\xff\xfe\x00\x01binary\x80", "latin1"),
    },
    ["ok/v1", "big/v1", "bin/v1"],
  );
  registerRepository(ns, "content", url);

  const big = await eventually("the big revision's Synced condition", () =>
    conditionOf("packagerevision", "content.big.v1", "Synced"),
  );
  expect(big).toMatchObject({
    status: "False",
    reason: "ContentTooLarge",
    message:
      'its files are not mirrored: file "data/big.bin" is 1048577 bytes, over the per-file limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)',
  });
  expect(resources("content.big.v1")).toBeUndefined();
  const bin = await eventually("the binary revision's Synced condition", () =>
    conditionOf("packagerevision", "content.bin.v1", "Synced"),
  );
  expect(bin).toMatchObject({ status: "False", reason: "NotUTF8" });
  expect(bin.message).toContain('file "blob.bin" is not UTF-8 text');
  expect(resources("content.bin.v1")).toBeUndefined();
  expect(resources("content.ok.v1")?.["cm.yaml"]).toBe("kind: ConfigMap # caf\u00e9\n");

  const ready = await eventually("the Repository's Ready condition", () =>
    conditionOf("repository", "content", "Ready"),
  );
  expect(ready).toMatchObject({ status: "True", reason: "Ready" });
  expect(ready.message).toMatch(
    /; 4 mirrored without their files, first content\.big\.main: file "data\/big\.bin" is 1048577 bytes/,
  );
});

// The harness caps package revisions per Repository at 30 (global-setup.ts): 31 tags are refused
// from their names, nothing is mirrored, and the Repository says why.
it("refuses to mirror a repository with more package revisions than the cap, naming it", async () => {
  const tags = Array.from({ length: 31 }, (_, i) => `a/v${i + 1}`);
  const url = await createGitRepository("many");
  pushWithGit(url, { "a/Kptfile": kptfile("a") }, tags);
  registerRepository(ns, "many", url);

  const ready = await eventually("the Repository's Ready condition", () =>
    conditionOf("repository", "many", "Ready"),
  );
  expect(ready).toMatchObject({
    status: "False",
    reason: "TooManyRevisions",
    message:
      "the repository has 31 refs that may name package revisions, over the limit of 30 package revisions per repository (PORCH_PEPR_REPOSITORY_MAX_REVISIONS); nothing is mirrored from it until it has fewer, and revisions already mirrored are kept",
  });
  expect(getJson("packagerevision", "many.a.v1", ns)).toBeUndefined();
});

// The harness caps a server's advertisement at 200 refs (global-setup.ts): 201 tags that name no
// package are refused before any is fetched, and the Repository names the setting.
it("refuses a repository advertising more refs than the limit, naming it", async () => {
  const tags = Array.from({ length: 201 }, (_, i) => `flood-${i}`);
  const url = await createGitRepository("refflood");
  pushWithGit(url, { "a/Kptfile": kptfile("a") }, tags);
  registerRepository(ns, "refflood", url);

  const ready = await eventually("the Repository's Ready condition", () =>
    conditionOf("repository", "refflood", "Ready"),
  );
  expect(ready).toMatchObject({ status: "False", reason: "ContentTooLarge" });
  expect(ready.message).toMatch(
    /advertises more than 200 refs or 102400 bytes of them, over the limit of 200 refs advertised per fetch \(PORCH_PEPR_GIT_MAX_REFS\)/,
  );
});

// A server advertising 400,000 refs: the git CLI held them all (about 1.4 KB each) before the ref
// limit could count what it wrote. git runs with its data memory bounded
// (PORCH_PEPR_GIT_PROCESS_MEMORY_BYTES, default 256 MiB), so the sync fails fast naming it.
it("ends a git fetch that a flood of refs takes past git's memory bound, naming the setting", async () => {
  const pkt = (line: string) => `${(line.length + 4).toString(16).padStart(4, "0")}${line}`;
  const oid = "a".repeat(40);
  const flood = http.createServer((req, res) => {
    if (!req.url?.includes("/info/refs")) {
      res.writeHead(500).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/x-git-upload-pack-advertisement" });
    const lines = [pkt("# service=git-upload-pack\n"), "0000", pkt(`${oid} HEAD\0ofs-delta\n`)];
    for (let i = 0; i < 400_000; i++) lines.push(pkt(`${oid} refs/tags/flood-${i}\n`));
    res.end(`${lines.join("")}0000`);
  });
  await new Promise<void>(resolve => flood.listen(0, "127.0.0.1", resolve));
  try {
    const { port } = flood.address() as AddressInfo;
    registerRepository(ns, "gitmemory", `http://127.0.0.1:${port}/flood.git`);
    // Settled: failed for a named reason, or (without the bound, when git got through) Ready.
    const ready = await eventually(
      "the Repository's Ready condition, settled",
      () => {
        const c = conditionOf("repository", "gitmemory", "Ready");
        return c?.status === "True" || c?.reason === "ContentTooLarge" ? c : undefined;
      },
      90_000,
    );
    expect(ready).toMatchObject({ status: "False", reason: "ContentTooLarge" });
    expect(ready.message).toContain(
      "ran out of the 268435456 bytes of memory a git process may take (PORCH_PEPR_GIT_PROCESS_MEMORY_BYTES)",
    );
  } finally {
    flood.closeAllConnections();
    await new Promise(resolve => flood.close(resolve));
  }
});
