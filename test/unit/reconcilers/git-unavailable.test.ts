import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { GitContentStore, GitStoreError } from "../../../lib/git";
import { testOperator, type TestOperator } from "../../support/operator-context";
import {
  cloneOfUpstream,
  configMap,
  current,
  draftRevision,
  labellingKptfile,
  NS,
} from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

const down = () =>
  new GitStoreError("Unavailable", "git server is unavailable: connection refused");

const readyOf = async (h: TestOperator, name: string) =>
  (
    await current(h.cluster, PackageRevisionKind, { metadata: { name, namespace: NS } })
  ).status?.conditions?.find(c => c.type === "Ready");

/**
 * A git server that is down for a while (the fault campaign's gitServerKills): the write is
 * retried with the queue's backoff, not recorded as the object's final failure, and Ready says
 * Unavailable meanwhile.
 */
describe("a git write while the git server is unavailable", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => {
    jest.restoreAllMocks();
    return h.close();
  });

  it("retries a proposal, saying Unavailable until git has it", async () => {
    const files = { Kptfile: labellingKptfile("app"), "configmap.yaml": configMap("app") };
    const d = await draftRevision(h, files);
    const name = d.pr.metadata?.name ?? "";
    await reconcilePackageRevision(`${NS}/${name}`, h.ctx); // rendered
    await h.cluster.patch(PackageRevisionKind, refOf(d.pr), {
      merge: { spec: { lifecycle: "Proposed" } },
    });
    jest.spyOn(GitContentStore.prototype, "updateLifecycle").mockRejectedValueOnce(down());

    await expect(reconcilePackageRevision(`${NS}/${name}`, h.ctx)).rejects.toMatchObject({
      code: "Unavailable",
    });
    expect(await readyOf(h, name)).toMatchObject({ status: "False", reason: "Unavailable" });

    await reconcilePackageRevision(`${NS}/${name}`, h.ctx); // the queue's retry
    expect((await d.store.getPackageContent(d.key)).info.lifecycle).toBe("Proposed");
    expect(await readyOf(h, name)).toMatchObject({ status: "True", message: "Proposed in git" });
  });

  it("retries a clone whose upstream could not be read, saying Unavailable meanwhile", async () => {
    const { metadata } = await cloneOfUpstream(h, {
      Kptfile: labellingKptfile("base"),
      "cm.yaml": configMap("a"),
    });
    const name = metadata?.name ?? "";
    jest.spyOn(GitContentStore.prototype, "getPackageContent").mockRejectedValueOnce(down());

    await expect(reconcilePackageRevision(`${NS}/${name}`, h.ctx)).rejects.toMatchObject({
      code: "Unavailable",
    });
    expect(await readyOf(h, name)).toMatchObject({ status: "False", reason: "Unavailable" });

    await reconcilePackageRevision(`${NS}/${name}`, h.ctx); // the queue's retry
    const pr = await current(h.cluster, PackageRevisionKind, { metadata: { name, namespace: NS } });
    expect(pr.status?.creationSource).toBe("clone");
    expect(await readyOf(h, name)).toMatchObject({ status: "True" });
  });
});
