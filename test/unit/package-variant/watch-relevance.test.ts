import type { PackageRevision, PackageVariant } from "../../../crd-types";
import { ChangeFilter } from "../../../lib/controller/change-filter";
import { revisionRelevance } from "../../../lib/package-variant";
import { allButStatus } from "../../../lib/controller/relevance";
import { LATEST_REVISION_LABEL } from "../../../lib/packages/latest-revision";

const draft = (status: Record<string, unknown> = {}, labels: Record<string, string> = {}) =>
  ({
    metadata: { uid: "u1", name: "deploy.app.packagevariant-1", labels },
    spec: {
      repository: "deploy",
      packageName: "app",
      workspaceName: "packagevariant-1",
      lifecycle: "Draft",
    },
    status,
  }) as unknown as PackageRevision;

describe("what a PackageVariant reconcile reads", () => {
  it("of a revision: the source executing, Ready and the end of a render, not render progress", () => {
    const f = new ChangeFilter(revisionRelevance);
    expect(f.changed("u1", draft())).toBe(true);
    expect(f.changed("u1", draft({ renderingPrrResourceVersion: "7" }))).toBe(false);
    expect(
      f.changed("u1", draft({ renderingPrrResourceVersion: "7", observedPrrResourceVersion: "7" })),
    ).toBe(true);
    const sourced = { observedPrrResourceVersion: "7", creationSource: "clone" };
    expect(f.changed("u1", draft(sourced))).toBe(true);
    const ready = {
      ...sourced,
      conditions: [
        { type: "Ready", status: "True", reason: "Ready", message: "", lastTransitionTime: "t1" },
      ],
    };
    expect(f.changed("u1", draft(ready))).toBe(true);
    // A new transition time alone is nothing to act on; a label may be (ownership is by label).
    const later = { ...ready, conditions: [{ ...ready.conditions[0], lastTransitionTime: "t2" }] };
    expect(f.changed("u1", draft(later))).toBe(false);
    expect(f.changed("u1", draft(later, { "config.porch.kpt.dev/packagevariant": "pv" }))).toBe(
      true,
    );
    const latest = { "config.porch.kpt.dev/packagevariant": "pv", [LATEST_REVISION_LABEL]: "true" };
    expect(f.changed("u1", draft(later, latest))).toBe(false);
  });

  it("of the variant: everything but its status", () => {
    const pv = (generation: number, status?: PackageVariant["status"]) =>
      ({
        metadata: { uid: "v1", generation, finalizers: ["f"] },
        spec: {},
        status,
      }) as PackageVariant;
    const f = new ChangeFilter(allButStatus);
    expect(f.changed("v1", pv(1))).toBe(true);
    expect(f.changed("v1", pv(1, { downstreamTargets: [{ name: "x" }] }))).toBe(false);
    expect(f.changed("v1", pv(2, { downstreamTargets: [{ name: "x" }] }))).toBe(true);
    expect(
      f.changed("v1", { ...pv(2), metadata: { uid: "v1", generation: 2, finalizers: [] } }),
    ).toBe(true);
  });
});
