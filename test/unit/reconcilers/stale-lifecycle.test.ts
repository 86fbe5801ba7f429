import { runLifecycle } from "../../../capabilities/package-revision/reconcile";
import { reconcilePackageRevision } from "../../../capabilities/package-revision/reconcile";
import { PackageRevisionKind } from "../../../crd-types";
import { refOf } from "../../../lib/cluster/port";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { current, renderedDraft } from "./fixtures";

// The store refuses file URLs unless the operator allows them (lib/git/url-policy.ts).
process.env.PORCH_PEPR_GIT_ALLOW_FILE = "true";
jest.setTimeout(30_000);

/**
 * A reconcile that holds a copy of the object older than the object (a watch cache that lags by
 * an event, a reconcile that rendered for seconds, two controller processes during a rollout)
 * must not move git back to what that copy asked for. Found while chasing a proposal the short
 * fault campaign saw go back to drafts/ after a watcher kill (its publish then failed).
 */
describe("a lifecycle move from a copy older than the object", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("leaves git as the object asks now, and says nothing from the old copy", async () => {
    const d = await renderedDraft(h);
    const old = await current(h.cluster, PackageRevisionKind, d.pr); // Draft
    await h.cluster.patch(PackageRevisionKind, refOf(d.pr), {
      merge: { spec: { lifecycle: "Proposed" } },
    });
    await reconcilePackageRevision(d.queueKey, h.ctx);
    expect((await d.store.getPackageContent(d.key)).info.lifecycle).toBe("Proposed");

    await runLifecycle(h.ctx, old, d.store);

    expect((await d.store.getPackageContent(d.key)).info.lifecycle).toBe("Proposed");
    const pr = await current(h.cluster, PackageRevisionKind, d.pr);
    const ready = pr.status?.conditions?.find(c => c.type === "Ready");
    expect(ready).toMatchObject({ status: "True", message: "Proposed in git" });
  });

  it("still makes the move the object asks for", async () => {
    const d = await renderedDraft(h);
    await h.cluster.patch(PackageRevisionKind, refOf(d.pr), {
      merge: { spec: { lifecycle: "Proposed" } },
    });
    await runLifecycle(h.ctx, await current(h.cluster, PackageRevisionKind, d.pr), d.store);
    expect((await d.store.getPackageContent(d.key)).info.lifecycle).toBe("Proposed");
  });
});
