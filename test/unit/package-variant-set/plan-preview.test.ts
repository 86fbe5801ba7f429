import type { PackageVariantSpec } from "../../../crd-types";
import { planPackageVariant, type VariantPlan } from "../../../lib/package-variant";
import {
  decidePlan,
  desiredVariant,
  planSet,
  planSpecProblems,
  plannedTargets,
  previewUpgrade,
  upgradesToPreview,
  type PlannedTarget,
  type UpgradePreview,
} from "../../../lib/package-variant-set";
import { applyEdits, clonedV1, LOCK_V2, upstreamV1 } from "../kpt/fixtures";
import { revision, upstreamRevision, variant } from "../package-variant/fixtures";

// A set "s" over edge01..: the fixtures' PackageVariant downstream is edge01/nginx.
const upstream = (n: number) => ({ repo: "blueprints", package: "nginx", revision: n });
const spec = (repo: string, n: number, labels?: Record<string, string>): PackageVariantSpec => ({
  upstream: upstream(n),
  downstream: { repo, package: "nginx" },
  adoptionPolicy: "adoptNone",
  deletionPolicy: "delete",
  ...(labels && { labels }),
});
const existing = (repo: string, n: number, labels?: Record<string, string>) =>
  variant(spec(repo, n, labels), desiredVariant("s", spec(repo, n)).name);

// edge01's downstream is a draft made from upstream v1.
const draftFromV1 = revision({ ws: "packagevariant-1", lockRef: "nginx/v1", creationSource: true });
const revisions = [upstreamRevision(1), upstreamRevision(2), draftFromV1];

/** The state machine's plan for each existing variant under the spec the set would write. */
function variantPlans(plan: ReturnType<typeof planSet>): Map<string, VariantPlan> {
  return new Map(
    [...plan.update, ...plan.unchanged].map(({ existing: pv, desired }) => [
      desired.name,
      planPackageVariant({
        pv: { ...variant(), ...pv, spec: desired.spec },
        upstream: upstreamRevision(desired.spec.upstream?.revision as number),
        revisions: pv.spec?.downstream?.repo === "edge01" ? revisions : revisions.slice(0, 2),
      }),
    ]),
  );
}

function targetsFor(desired: PackageVariantSpec[], have: ReturnType<typeof existing>[]) {
  const plan = planSet(
    "s",
    desired.map(d => desiredVariant("s", d)),
    have,
    true,
  );
  return plannedTargets(plan, variantPlans(plan));
}
const inputs = { setName: "s", generation: 3, approvedPlan: undefined, appliedPlan: undefined };

describe("plannedTargets", () => {
  it("lists a create, an upgrade from 1 to 2, an update of the mutations and a delete", () => {
    const targets = targetsFor(
      [spec("edge01", 2), spec("edge02", 1, { env: "prod" }), spec("edge04", 1)],
      [existing("edge01", 1), existing("edge02", 1), existing("edge03", 1)],
    );
    expect(targets.map(t => [t.entry?.repository, t.action])).toEqual([
      ["edge04", "create"],
      ["edge01", "upgrade"],
      ["edge02", "update"],
      ["edge03", "delete"],
    ]);
    const upgrade = targets[1];
    expect(upgrade.entry).toMatchObject({
      fromRevision: "1",
      toRevision: "2",
      changedFields: ["upstream.revision: 1 → 2"],
    });
    expect(upgrade.upgrade?.downstream.metadata?.name).toBe("edge01.nginx.packagevariant-1");
    expect(targets[2].entry?.changedFields).toEqual(['labels: added {"env":"prod"}']);
    expect(targets[0].entry?.toRevision).toBe("1");
  });

  it("cuts a spec field a tenant made long, so that 100 entries fit one object", () => {
    const long = "x".repeat(10_000);
    const [target] = targetsFor([spec("edge02", 1, { env: long })], [existing("edge02", 1)]);
    const [field] = target.entry?.changedFields ?? [];
    expect(field).toHaveLength(200);
    expect(field.startsWith('labels: added {"env":"xxx')).toBe(true);
    expect(field.endsWith("…")).toBe(true);
  });

  it("counts a target with nothing to do without listing it", () => {
    const targets = targetsFor([spec("edge02", 1)], [existing("edge02", 1)]);
    expect(targets.map(t => [t.action, t.entry])).toEqual([["unchanged", undefined]]);
    const { status, decision } = decidePlan(targets, new Map(), inputs);
    expect(status.counts).toEqual({ create: 0, upgrade: 0, update: 0, delete: 0, unchanged: 1 });
    expect([status.summary, status.entries]).toEqual(["no changes", []]);
    expect(decision).toMatchObject({ apply: false, reason: "NothingToApply" });
  });
});

describe("previewUpgrade", () => {
  it("names the files the merge changes and the conflict it records, on the inputs' bytes", () => {
    const input = {
      original: upstreamV1(),
      updated: applyEdits(upstreamV1(), [["deploy.yaml", "replicas: 1", "replicas: 3"]]),
      local: applyEdits(clonedV1(), [["deploy.yaml", "replicas: 1", "replicas: 5"]]),
    };
    const preview = previewUpgrade(input, LOCK_V2);
    // Both sides changed replicas: the merge keeps upstream's, as kpt does, and records it.
    expect(preview.changedFiles).toEqual(["Kptfile", "deploy.yaml"]);
    expect(preview.conflicts).toHaveLength(1);
    expect(preview.conflicts?.[0]).toContain("spec.replicas");
    expect(input.local["deploy.yaml"]).toContain("replicas: 5");
  });

  it("lists a file upstream adds and bounds the lists", () => {
    const added = Object.fromEntries(
      Array.from({ length: 25 }, (_, i) => [`cm-${String(i).padStart(2, "0")}.yaml`, `a: ${i}\n`]),
    );
    const preview = previewUpgrade(
      { original: upstreamV1(), updated: { ...upstreamV1(), ...added }, local: clonedV1() },
      LOCK_V2,
    );
    expect(preview.changedFiles).toHaveLength(20);
    expect(preview.changedFiles?.[0]).toBe("Kptfile");
    expect(preview.unlistedFiles).toBe(6);
  });

  it("says why when the merge would fail", () => {
    const local = { ...clonedV1() };
    delete local.Kptfile;
    const preview = previewUpgrade(
      { original: upstreamV1(), updated: upstreamV1(), local },
      LOCK_V2,
    );
    expect(preview.message).toMatch(/^the upgrade would fail: /);
  });
});

describe("decidePlan", () => {
  const targets = () =>
    targetsFor(
      [spec("edge01", 2), spec("edge04", 1)],
      [existing("edge01", 1), existing("edge03", 1)],
    );
  const preview: UpgradePreview = { changedFiles: ["Kptfile"], conflicts: ["c"] };

  it("holds the plan until its id is approved, and says how to approve it", () => {
    const t = targets();
    const previews = new Map([[t[1].entry!.packageVariant, preview]]);
    const { status, decision } = decidePlan(t, previews, inputs);
    expect(status.summary).toBe("1 create, 1 upgrade, 1 delete");
    expect(status.id).toMatch(/^[0-9a-f]{16}$/);
    expect(status.entries?.map(e => e.action)).toEqual(["upgrade", "delete", "create"]);
    expect(status.entries?.[0]).toMatchObject(preview);
    expect(decision.apply).toBe(false);
    expect(decision.reason).toBe("AwaitingApproval");
    expect(decision.message).toContain(
      `kubectl patch packagevariantset s --type merge -p '{"spec":{"plan":{"approvedPlan":"${status.id}"}}}'`,
    );
    expect(status.appliedPlan).toBeUndefined();
  });

  it("applies the approved id and records it; the generation does not enter the id", () => {
    const id = decidePlan(targets(), new Map(), inputs).status.id;
    const { status, decision } = decidePlan(targets(), new Map(), {
      ...inputs,
      generation: 4,
      approvedPlan: id,
    });
    expect(decision).toMatchObject({ apply: true, reason: "Applied" });
    expect([status.id, status.appliedPlan]).toEqual([id, id]);
  });

  it("refuses a stale approval: the upstream moved, so the id changed", () => {
    const id = decidePlan(targets(), new Map(), inputs).status.id!;
    const moved = targetsFor(
      [spec("edge01", 1), spec("edge04", 1)],
      [existing("edge01", 1), existing("edge03", 1)],
    );
    const { status, decision } = decidePlan(moved, new Map(), { ...inputs, approvedPlan: id });
    expect(status.id).not.toBe(id);
    expect(decision).toMatchObject({ apply: false, reason: "ApprovedPlanStale" });
    expect(decision.message).toContain(`approved plan "${id}" is not the current plan`);
  });

  it("after applying, a new plan waits for its own approval", () => {
    const { decision } = decidePlan(targets(), new Map(), {
      ...inputs,
      approvedPlan: "0123456789abcdef",
      appliedPlan: "0123456789abcdef",
    });
    expect(decision.reason).toBe("AwaitingApproval");
  });

  it("lists at most 100 entries and previews at most 20 upgrades; the counts cover all", () => {
    const many: PlannedTarget[] = Array.from({ length: 130 }, (_, i) => ({
      action: "upgrade",
      writes: spec(`r${i}`, 2),
      upgrade: {
        oldUpstream: upstreamRevision(1),
        newUpstream: upstreamRevision(2),
        downstream: draftFromV1,
      },
      entry: { packageVariant: `pv-${i}`, action: "upgrade" },
    }));
    expect(upgradesToPreview(many)).toHaveLength(20);
    const { status } = decidePlan(many, new Map([["pv-0", preview]]), inputs);
    expect([status.counts?.upgrade, status.entries?.length, status.unlistedEntries]).toEqual([
      130, 100, 30,
    ]);
    expect(status.entries?.[0]).toMatchObject(preview);
    expect(status.entries?.[1].message).toMatch(/not previewed/);
  });
});

describe("planSpecProblems", () => {
  const set = (revision: number | string, plan: object) => ({
    upstream: { repo: "b", package: "app", revision },
    targets: [],
    plan,
  });

  it("accepts Plan mode on a numbered upstream revision and an approved plan id", () => {
    expect(planSpecProblems(set("v2", { mode: "Plan", approvedPlan: "0123456789abcdef" }))).toEqual(
      [],
    );
    expect(planSpecProblems(set("latest", { mode: "Apply" }))).toEqual([]);
  });

  it("names Plan mode on latest and an approvedPlan that is no plan id", () => {
    expect(planSpecProblems(set("latest", { mode: "Plan", approvedPlan: "yes" }))).toEqual([
      'spec.plan.mode Plan needs spec.upstream.revision to be a revision number (or spec.upstream.workspaceName): with "latest" each PackageVariant follows a newly published upstream revision by itself, before a plan could be approved',
      'spec.plan.approvedPlan "yes" is not a plan id (16 hexadecimal digits, copied from status.plan.id)',
    ]);
  });
});
