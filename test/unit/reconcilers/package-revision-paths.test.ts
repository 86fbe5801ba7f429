import { FINALIZER } from "../../../capabilities/package-revision/finalizer";
import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { condition, MANAGER } from "../../../capabilities/package-revision/status";
import { PackageRevision, PackageRevisionKind, RepositoryKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { REPOSITORY_UID_ANNOTATION } from "../../../lib/packages/deletion";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, NS, repositoryObject, seed } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";

const draft = (repository: string, annotations?: Record<string, string>): PackageRevision => ({
  metadata: { name: `${repository}.app.v1`, namespace: NS, ...(annotations && { annotations }) },
  spec: { repository, packageName: "app", workspaceName: "v1", lifecycle: "Draft" },
});

describe("reconcilePackageRevision: before git is reached", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("does nothing for a PackageRevision that does not exist", async () => {
    const calls = h.callsFrom();

    await expect(reconcilePackageRevision(`${NS}/gone.app.v1`, h.ctx)).resolves.toBeUndefined();

    expect(calls()).toEqual([`get PackageRevision ${NS}/gone.app.v1`]);
  });

  it("says Ready=False when its Repository does not exist", async () => {
    const pr = await seed(h.cluster, PackageRevisionKind, draft("missing"));

    await expect(reconcilePackageRevision(`${NS}/missing.app.v1`, h.ctx)).resolves.toBeUndefined();

    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(after.metadata?.finalizers).toEqual([FINALIZER]);
    expect(condition(after, "Ready")).toMatchObject({
      status: "False",
      reason: "Failed",
      message: 'repository "missing" not found or being deleted',
    });
  });

  it("says Ready=False when its Repository is being deleted", async () => {
    await seed(h.cluster, RepositoryKind, {
      ...repositoryObject("leaving", await h.localRepository("leaving")),
      metadata: { name: "leaving", namespace: NS, finalizers: ["example.com/hold"] },
    });
    await h.cluster.delete(RepositoryKind, { namespace: NS, name: "leaving" });
    const pr = await seed(h.cluster, PackageRevisionKind, draft("leaving"));

    await reconcilePackageRevision(`${NS}/leaving.app.v1`, h.ctx);

    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(condition(after, "Ready")).toMatchObject({
      status: "False",
      message: 'repository "leaving" not found or being deleted',
    });
  });

  it("leaves a revision made under an earlier Repository of the same name alone", async () => {
    const repo = await seed(
      h.cluster,
      RepositoryKind,
      repositoryObject("again", await h.localRepository("again")),
    );
    const earlier = "00000000-0000-4000-8000-0000000000ff";
    const pr = await seed(
      h.cluster,
      PackageRevisionKind,
      draft("again", { [REPOSITORY_UID_ANNOTATION]: earlier }),
    );

    await reconcilePackageRevision(`${NS}/again.app.v1`, h.ctx);

    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(condition(after, "Ready")).toMatchObject({
      status: "False",
      reason: "RepositoryReplaced",
      message: expect.stringContaining(`(UID ${repo.metadata?.uid})`),
    });
    // No ownerReference to the new Repository: its deletion must not cascade to this revision.
    expect(after.metadata?.ownerReferences).toBeUndefined();
    expect(h.cluster.managers(PackageRevisionKind, refOf(pr))).toEqual([`${MANAGER.core}/status`]);
  });
});
