// A field manager's server-side apply must state every condition that manager wrote before:
// what it leaves out, the API server deletes. The writers took a per-writer list of the types
// to carry over, separate from what callers passed in; a condition given to a writer whose list
// lacked it was written once and dropped by that writer's next apply.
import { applyRenderStatus, stateOutcome } from "../../../capabilities/package-revision/status";
import { PackageRevisionKind, type PackageRevision } from "../../../crd-types";
import {
  revisionConditions,
  type ConditionManager,
  type RevisionOutcome,
} from "../../../lib/package-revision";
import { FIELD_MANAGERS } from "../../../lib/package-revision/field-managers";
import { testOperator, type TestOperator } from "../../support/operator-context";
import { NS, seed } from "../reconcilers/fixtures";

const draft: PackageRevision = {
  metadata: { name: "repo.app.v1", namespace: NS },
  spec: { repository: "repo", packageName: "app", workspaceName: "v1", lifecycle: "Draft" },
};

/** Every outcome that states a condition. */
const outcomes: RevisionOutcome[] = [
  { kind: "failed", reason: "Failed", message: "m" },
  { kind: "sourceFailed", reason: "NotFound", message: "m" },
  { kind: "rendered", verdict: { ok: true, functions: 1 }, observedPrrResourceVersion: "5" },
  { kind: "uncommittable", reason: "ContentTooLarge", message: "m" },
  {
    kind: "created",
    lifecycle: "Draft",
    verdict: { ok: true, functions: 1 },
    fields: { creationSource: "upgrade", revision: 0 },
    conflicts: ["x changed on both sides"],
  },
  { kind: "inGit", lifecycle: "Draft", rendered: undefined, fields: { revision: 0 } },
];

describe("status writers: one apply per outcome", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  /** The condition types each manager's applies stated, in order. */
  function appliedTypes(apply: jest.SpyInstance): { manager: string; types: string[] }[] {
    return apply.mock.calls.map(([, obj, manager]) => ({
      manager,
      types: ((obj as PackageRevision).status?.conditions ?? []).map(c => c.type).sort(),
    }));
  }

  it.each(outcomes.flatMap(first => outcomes.map(next => [first.kind, next.kind, first, next])))(
    "keeps what %s stated in the applies of %s",
    async (_first, _next, first, next) => {
      const pr = await seed(h.cluster, PackageRevisionKind, structuredClone(draft));
      await stateOutcome(h.ctx, pr, first as RevisionOutcome);
      const apply = jest.spyOn(h.cluster, "apply");
      await stateOutcome(h.ctx, pr, next as RevisionOutcome);

      const written = revisionConditions(first as RevisionOutcome);
      // The core and render parts are applied together, under the core manager.
      const parts: Record<string, ConditionManager[]> = {
        [FIELD_MANAGERS.core]: ["core", "render"],
        [FIELD_MANAGERS.approval]: ["approval"],
      };
      for (const { manager, types } of appliedTypes(apply)) {
        for (const c of (parts[manager] ?? []).flatMap(
          (part): { type: string }[] => written[part] ?? [],
        ))
          expect(types).toContain(c.type);
      }
    },
  );

  it("states an outcome of both parts in one apply, under the core manager", async () => {
    const pr = await seed(h.cluster, PackageRevisionKind, structuredClone(draft));
    const apply = jest.spyOn(h.cluster, "apply");
    await stateOutcome(h.ctx, pr, outcomes[4]);
    expect(appliedTypes(apply)).toEqual([
      { manager: FIELD_MANAGERS.core, types: ["Ready", "Rendered", "Upgraded"] },
    ]);
  });

  describe("the rendered Kptfile's conditions (status.packageConditions)", () => {
    const injected = [{ type: "config.injection.ConfigMap.db", status: "True" }];
    const rendered = (packageConditions: typeof injected): RevisionOutcome => ({
      kind: "rendered",
      verdict: { ok: true, functions: 1 },
      observedPrrResourceVersion: "5",
      packageConditions,
    });
    /** What each status apply stated as packageConditions, by manager. */
    const statedBy = (apply: jest.SpyInstance) =>
      apply.mock.calls
        .filter(([, , , options]) => (options as { status?: boolean } | undefined)?.status)
        .map(([, obj, manager]) => ({
          manager,
          packageConditions: (obj as PackageRevision).status?.packageConditions,
        }));

    it("go with the render's outcome, in its one apply under the core manager", async () => {
      const pr = await seed(h.cluster, PackageRevisionKind, structuredClone(draft));
      const apply = jest.spyOn(h.cluster, "apply");
      await stateOutcome(h.ctx, pr, rendered(injected));
      expect(statedBy(apply)).toEqual([
        { manager: FIELD_MANAGERS.core, packageConditions: injected },
      ]);
    });

    // A revision an earlier version wrote has them under the Kptfile manager: every apply of
    // the core manager states them (and takes them over), so none drops them.
    it.each(outcomes.map(o => [o.kind, o]))(
      "are stated at their value by an apply of %s that does not change them",
      async (_kind, outcome) => {
        const pr = await seed(h.cluster, PackageRevisionKind, {
          ...structuredClone(draft),
          status: { packageConditions: injected },
        });
        const apply = jest.spyOn(h.cluster, "apply");
        await stateOutcome(h.ctx, pr, outcome as RevisionOutcome);
        await applyRenderStatus(h.ctx, pr, { renderingPrrResourceVersion: "7" });
        expect(statedBy(apply)).toEqual([
          { manager: FIELD_MANAGERS.core, packageConditions: injected },
          { manager: FIELD_MANAGERS.core, packageConditions: injected },
        ]);
      },
    );

    it("are emptied by a render of a Kptfile that has none, and not stated where there were none", async () => {
      const pr = await seed(h.cluster, PackageRevisionKind, {
        ...structuredClone(draft),
        status: { packageConditions: injected },
      });
      await stateOutcome(h.ctx, pr, rendered([]));
      expect(pr.status?.packageConditions).toEqual([]);
      const fresh = await seed(h.cluster, PackageRevisionKind, {
        ...structuredClone(draft),
        metadata: { ...draft.metadata, name: "repo.app.v2" },
      });
      const apply = jest.spyOn(h.cluster, "apply");
      await stateOutcome(h.ctx, fresh, rendered([]));
      expect(statedBy(apply)).toEqual([
        { manager: FIELD_MANAGERS.core, packageConditions: undefined },
      ]);
    });
  });

  it("refuses, at compile time, a condition its manager does not own", () => {
    // Ready through the render writer (to be dropped by that writer's next apply) does not
    // compile: `npx tsc -p tsconfig.test.json` fails when this line stops being an error.
    const readyThroughRender = (pr: PackageRevision) =>
      applyRenderStatus(h.ctx, pr, {}, [
        // @ts-expect-error Ready is the core manager's condition.
        { type: "Ready", status: "False", reason: "Failed", message: "m" },
      ]);
    expect(readyThroughRender).toBeInstanceOf(Function);
  });
});
