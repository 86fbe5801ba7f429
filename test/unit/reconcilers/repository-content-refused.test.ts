import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reconcileRepository } from "../../../capabilities/repository/reconcile";
import {
  PackageRevisionKind,
  PackageRevisionResourcesKind,
  RepositoryKind,
} from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { git, writeFiles } from "../git/helpers";
import { NS, current, kptfile, repositoryObject, seed } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

// A revision whose files the operator does not carry (over the default per-file limit of 1 MiB,
// or not UTF-8) is mirrored with Synced=False naming the file and the limit, never as a
// revision silently without files; the repository's other packages mirror as usual.
describe("a sync of a repository holding content over a limit or not UTF-8", () => {
  let h: TestOperator;
  let work: string;
  beforeEach(async () => {
    h = await testOperator();
    const url = await h.localRepository("repo");
    work = await mkdtemp(join(tmpdir(), "porch-refused-"));
    await git(work, "clone", "-q", url, "w");
    await writeFiles(join(work, "w"), {
      "ok/Kptfile": kptfile("ok"),
      "ok/cm.yaml": "kind: ConfigMap\n",
      "big/Kptfile": kptfile("big"),
      "big/big.bin": Buffer.alloc(1024 * 1024 + 1, "a"),
      "bin/Kptfile": kptfile("bin"),
      "bin/blob.bin": Buffer.from("\xff\xfe\x00\x01binary\x80", "latin1"),
    });
    await git(join(work, "w"), "add", ".");
    await git(join(work, "w"), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c");
    await git(join(work, "w"), "push", "-q", "origin", "HEAD:main");
    await seed(h.cluster, RepositoryKind, repositoryObject("repo", url));
  });
  afterEach(async () => {
    await h.close();
    await rm(work, { recursive: true, force: true });
  });

  const synced = async (pkg: string) => {
    const name = `repo.${pkg}.main`;
    const pr = await current(h.cluster, PackageRevisionKind, {
      metadata: { namespace: NS, name },
    });
    const prr = await h.cluster.get(PackageRevisionResourcesKind, { namespace: NS, name });
    return { synced: pr.status?.conditions?.find(c => c.type === "Synced"), prr };
  };

  it("says so on each such revision and on the Repository, and mirrors the rest", async () => {
    await reconcileRepository(`${NS}/repo`, h.ctx);

    const big = await synced("big");
    expect(big.synced).toMatchObject({
      status: "False",
      reason: "ContentTooLarge",
      message:
        'its files are not mirrored: file "big.bin" is 1048577 bytes, over the per-file limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)',
    });
    expect(big.prr).toBeUndefined();
    const bin = await synced("bin");
    expect(bin.synced).toMatchObject({ status: "False", reason: "NotUTF8" });
    expect(bin.synced?.message).toContain('file "blob.bin" is not UTF-8 text');
    const ok = await synced("ok");
    expect(ok.synced).toMatchObject({ status: "True", reason: "Synced" });
    expect(ok.prr?.spec?.resources?.["cm.yaml"]).toBe("kind: ConfigMap\n");

    const ready = async () =>
      (
        await current(h.cluster, RepositoryKind, { metadata: { namespace: NS, name: "repo" } })
      ).status?.conditions?.find(c => c.type === "Ready");
    const expected = {
      status: "True",
      message: expect.stringMatching(
        /^synced 3 package revision\(s\) of 3 package\(s\); 2 mirrored without their files, first repo\.big\.main: file "big\.bin" is 1048577 bytes, over the per-file limit/,
      ),
    };
    expect(await ready()).toMatchObject(expected);
    // The next sync reads nothing again and says the same.
    h.clock.advance(60 * 60_000);
    await reconcileRepository(`${NS}/repo`, h.ctx);
    expect(await ready()).toMatchObject(expected);
  });
});
