import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { pendingDraftsOf } from "../../../capabilities/package-revision/writers";
import { condition } from "../../../capabilities/package-revision/status";
import { PackageRevision, PackageRevisionKind, RepositoryKind } from "../../../crd-types";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { cloneOfUpstream, current, draftOnItsWay, kptfile, NS } from "./fixtures";

process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/** Whether the local repository `url` has `ref`. */
function has(url: string, ref: string): boolean {
  const out = execFileSync("git", ["for-each-ref", "--format=%(refname)", ref], {
    cwd: fileURLToPath(url),
  });
  return out.toString().trim() === ref;
}

/** A new clone draft, and another draft of its repository queued (the watch cached both). */
async function draftBesideAnother(h: TestOperator): Promise<PackageRevision> {
  const pr = await cloneOfUpstream(h, { Kptfile: kptfile("base") });
  h.ctx.caches.revisions.cache.upsert(pr);
  await draftOnItsWay(h);
  return pr;
}

/**
 * Issue 29: a new draft whose repository has other drafts on their way hands its branch to the
 * repository's next push and ends its reconcile: no worker waits on the push. Its status says
 * nothing until the push landed; then it is reconciled again and goes on from there.
 */
describe("a new draft whose repository has other writers on their way", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("is handed to the push, and Ready only after its branch is in git and its revision came back", async () => {
    const pr = await draftBesideAnother(h);
    const woken = new Promise<string>(resolve => pendingDraftsOf(h.ctx).onSettled(resolve));
    const key = `${NS}/${pr.metadata?.name}`;

    await reconcilePackageRevision(key, h.ctx);
    // Handed in: nothing stated yet.
    const handedIn = await current(h.cluster, PackageRevisionKind, pr);
    expect(handedIn.status?.creationSource).toBeUndefined();
    expect(condition(handedIn, "Ready")).toBeUndefined();

    // The push landed (no batch waits in this context: nothing tells the store about writers).
    expect(await woken).toBe(key);
    const repo = await current(h.cluster, RepositoryKind, {
      metadata: { name: "repo", namespace: NS },
    });
    expect(has(repo.spec?.git?.repo ?? "", "refs/heads/drafts/app/v1")).toBe(true);

    await reconcilePackageRevision(key, h.ctx);
    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(after.status?.creationSource).toBe("clone");
    expect(condition(after, "Ready")).toMatchObject({ status: "True", reason: "Ready" });
    expect(pendingDraftsOf(h.ctx).handedIn(`${NS}/repo`)).toBe(0);
  });

  // Handed in, a tenant's burst freed its workers for the next drafts and ran as fast as the CPU
  // allowed: another tenant's drafts waited four to six times longer (noisy-neighbour campaign).
  it("waits for its push in its worker while another namespace has work", async () => {
    const pr = await draftBesideAnother(h);
    h.ctx.stores.othersActive = namespace => namespace !== "victim";

    await reconcilePackageRevision(`${NS}/${pr.metadata?.name}`, h.ctx);
    const after = await current(h.cluster, PackageRevisionKind, pr);
    expect(after.status?.creationSource).toBe("clone");
    expect(condition(after, "Ready")).toMatchObject({ status: "True", reason: "Ready" });
  });
});
