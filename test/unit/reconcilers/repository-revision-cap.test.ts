import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reconcileRepository } from "../../../capabilities/repository/reconcile";
import { PackageRevisionKind, RepositoryKind } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { git, writeFiles } from "../git/helpers";
import { NS, current, kptfile, repositoryObject, seed } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
// Read when a content store opens: a cap of 3 package revisions per repository.
process.env.PORCH_PEPR_REPOSITORY_MAX_REVISIONS = "3";
jest.setTimeout(30_000);

// A repository with more package revisions than the cap is not mirrored: Ready=False
// TooManyRevisions naming the count, the cap and the setting; what was mirrored before stays,
// and the refusal waits for the next scheduled sync instead of retrying.
describe("a sync of a repository over the package revision cap", () => {
  let h: TestOperator;
  let work: string;
  const push = (...args: string[]) => git(join(work, "w"), "push", "-q", "origin", ...args);
  beforeEach(async () => {
    h = await testOperator();
    const url = await h.localRepository("repo");
    work = await mkdtemp(join(tmpdir(), "porch-cap-"));
    await git(work, "clone", "-q", url, "w");
    await writeFiles(join(work, "w"), { "a/Kptfile": kptfile("a") });
    await git(join(work, "w"), "add", ".");
    await git(join(work, "w"), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c");
    await push("HEAD:main", "HEAD:refs/tags/a/v1");
    await seed(h.cluster, RepositoryKind, repositoryObject("repo", url));
  });
  afterEach(async () => {
    await h.close();
    await rm(work, { recursive: true, force: true });
  });

  const ready = async () =>
    (
      await current(h.cluster, RepositoryKind, { metadata: { namespace: NS, name: "repo" } })
    ).status?.conditions?.find(c => c.type === "Ready");
  const mirrored = async () =>
    (await h.cluster.list(PackageRevisionKind, { namespace: NS }))
      .map(pr => pr.metadata?.name)
      .sort();

  it("refuses it naming the count and the setting, keeps what was mirrored, and waits for git to change", async () => {
    await reconcileRepository(`${NS}/repo`, h.ctx);
    expect(await mirrored()).toEqual(["repo.a.main", "repo.a.v1"]);

    // Four tags: refused from the ref names, before any is read.
    await push("HEAD:refs/tags/a/v2", "HEAD:refs/tags/a/v3", "HEAD:refs/tags/a/v4");
    h.clock.advance(60 * 60_000);
    const result = await reconcileRepository(`${NS}/repo`, h.ctx);
    expect(await ready()).toMatchObject({
      status: "False",
      reason: "TooManyRevisions",
      message:
        "the repository has 4 refs that may name package revisions, over the limit of 3 package revisions per repository (PORCH_PEPR_REPOSITORY_MAX_REVISIONS); nothing is mirrored from it until it has fewer, and revisions already mirrored are kept",
    });
    expect(await mirrored()).toEqual(["repo.a.main", "repo.a.v1"]);
    // Not an error the queue retries with backoff: the next sync is the schedule's.
    expect(result).toEqual({ requeueAfterMs: 10 * 60_000 });
    // Woken before then (its own status write), it does not read git again.
    const calls = h.callsFrom();
    await reconcileRepository(`${NS}/repo`, h.ctx);
    expect(calls()).toEqual([expect.stringMatching(/^get /)]);

    // Three tags and the branch's package: four revisions as listed, refused all the same.
    await push(":refs/tags/a/v4");
    h.clock.advance(60 * 60_000);
    await reconcileRepository(`${NS}/repo`, h.ctx);
    expect(await ready()).toMatchObject({
      status: "False",
      reason: "TooManyRevisions",
      message: expect.stringMatching(
        /^the repository has 4 package revisions, over the limit of 3/,
      ),
    });
    expect(await mirrored()).toEqual(["repo.a.main", "repo.a.v1"]);

    // Under the cap again: mirrored as usual.
    await push(":refs/tags/a/v3");
    h.clock.advance(60 * 60_000);
    await reconcileRepository(`${NS}/repo`, h.ctx);
    expect(await ready()).toMatchObject({ status: "True", reason: "Ready" });
    expect(await mirrored()).toEqual(["repo.a.main", "repo.a.v1", "repo.a.v2"]);
  });
});
