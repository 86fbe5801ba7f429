import "./namespace-revision-cap.env";

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { reconcileRepository } from "../../../capabilities/repository/reconcile";
import { PackageRevisionKind, RepositoryKind, type PackageRevision } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { git, writeFiles } from "../git/helpers";
import { NS, current, kptfile, repositoryObject, seed } from "./fixtures";

jest.setTimeout(30_000);

// Each Repository is held to its own revision cap, but a tenant registers as many as they like:
// the mirror also keeps at most PORCH_PEPR_NAMESPACE_MAX_REVISIONS in one namespace (3 here).
let h: TestOperator;
let work: string;
beforeEach(async () => {
  h = await testOperator();
  const url = await h.localRepository("repo");
  work = await mkdtemp(join(tmpdir(), "porch-ns-cap-"));
  await git(work, "clone", "-q", url, "w");
  await writeFiles(join(work, "w"), { "a/Kptfile": kptfile("a") });
  await git(join(work, "w"), "add", ".");
  await git(join(work, "w"), "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c");
  await git(join(work, "w"), "push", "-q", "origin", "HEAD:main", "HEAD:refs/tags/a/v1");
  await seed(h.cluster, RepositoryKind, repositoryObject("repo", url));
});
afterEach(async () => {
  await h.close();
  await rm(work, { recursive: true, force: true });
});

const other = (name: string): PackageRevision => ({
  metadata: { name, namespace: NS },
  spec: { repository: "other", packageName: name, workspaceName: "v1", lifecycle: "Draft" },
});

it("refuses a Repository whose revisions would take its namespace over the cap, naming the setting", async () => {
  for (const name of ["x", "y"]) await seed(h.cluster, PackageRevisionKind, other(name));
  await reconcileRepository(`${NS}/repo`, h.ctx);
  const ready = (
    await current(h.cluster, RepositoryKind, repositoryObject("repo", ""))
  ).status?.conditions?.find(c => c.type === "Ready");
  expect(ready).toMatchObject({
    status: "False",
    reason: "TooManyRevisions",
    message:
      "the repository has 2 package revisions and the namespace 2 more, over the limit of 3 package revisions per namespace (PORCH_PEPR_NAMESPACE_MAX_REVISIONS); nothing is mirrored from it until there are fewer, and revisions already mirrored are kept",
  });
  const names = (await h.cluster.list(PackageRevisionKind, { namespace: NS })).map(
    pr => pr.metadata?.name,
  );
  expect(names.sort()).toEqual(["x", "y"]);
});

it("mirrors a Repository that fits beside the namespace's other revisions", async () => {
  await seed(h.cluster, PackageRevisionKind, other("x"));
  await reconcileRepository(`${NS}/repo`, h.ctx);
  const names = (await h.cluster.list(PackageRevisionKind, { namespace: NS })).map(
    pr => pr.metadata?.name,
  );
  expect(names.sort()).toEqual(["repo.a.main", "repo.a.v1", "x"]);
});
