import { desiredVariant, nameTakenMessage, planSet } from "../../../lib/package-variant-set";

const upstream = { repo: "b", package: "app", revision: 1 };
const want = (repo: string, labels?: Record<string, string>) =>
  desiredVariant("set", {
    upstream,
    downstream: { repo, package: "app" },
    ...(labels && { labels }),
  });
// As the API server stores them: with the CRD's defaults.
const have = (name: string, repo: string, labels?: Record<string, string>) => ({
  metadata: { name },
  spec: {
    upstream,
    downstream: { repo, package: "app" },
    adoptionPolicy: "adoptNone" as const,
    deletionPolicy: "delete" as const,
    ...(labels && { labels }),
  },
});

describe("planSet", () => {
  const existing = [
    have("set-a-app", "a"),
    have("set-b-app", "b", { x: "1" }),
    have("set-gone-app", "gone"),
  ];
  const desired = [want("a"), want("b", { x: "2" }), want("new")];

  it("creates, updates, keeps and deletes by identifier", () => {
    const plan = planSet("set", desired, existing, true);
    expect(plan.create.map(d => d.name)).toEqual(["set-new-app"]);
    expect(plan.update.map(u => [u.existing.metadata?.name, u.desired.spec.labels])).toEqual([
      ["set-b-app", { x: "2" }],
    ]);
    expect(plan.unchanged.map(u => u.existing.metadata?.name)).toEqual(["set-a-app"]);
    expect(plan.delete.map(e => e.metadata?.name)).toEqual(["set-gone-app"]);
  });

  it("matches an existing PackageVariant by its spec, not its name", () => {
    const renamed = [have("created-by-an-older-version", "a")];
    const plan = planSet("set", [want("a")], renamed, true);
    expect(plan.unchanged).toHaveLength(1);
    expect(plan.create).toHaveLength(0);
  });

  it("deletes nothing when the desired set is incomplete", () => {
    const plan = planSet("set", [], existing, false);
    expect(plan.delete).toEqual([]);
  });

  it("deletes a duplicate for the same downstream", () => {
    const plan = planSet("set", [want("a")], [have("one", "a"), have("two", "a")], true);
    expect(plan.unchanged.map(u => u.existing.metadata?.name)).toEqual(["one"]);
    expect(plan.delete.map(e => e.metadata?.name)).toEqual(["two"]);
  });
});

describe("desiredVariant", () => {
  it("spells out the CRD defaults, so a stored PackageVariant compares equal", () => {
    const stored = { metadata: { name: "set-a-app" }, spec: { ...want("a").spec } };
    expect(want("a").spec).toMatchObject({ adoptionPolicy: "adoptNone", deletionPolicy: "delete" });
    expect(planSet("set", [want("a")], [stored], true).unchanged).toHaveLength(1);
  });

  it("keeps policies the template chose", () => {
    const d = desiredVariant("set", {
      upstream,
      downstream: { repo: "a", package: "app" },
      deletionPolicy: "orphan",
    });
    expect(d.spec.deletionPolicy).toBe("orphan");
  });
});

describe("nameTakenMessage: a name collision is a failure that names the owner", () => {
  const setUid = "set-uid";
  const pv = (ownerReferences?: object[]) => ({ metadata: { name: "set-a-app", ownerReferences } });

  it("names the controller that owns the PackageVariant of that name", () => {
    const other = { kind: "PackageVariantSet", name: "other", uid: "u2", controller: true };
    expect(nameTakenMessage(pv([other]), setUid)).toBe(
      'PackageVariant "set-a-app" already exists and is controlled by PackageVariantSet "other", not by this set',
    );
  });

  it("says so when nothing controls it (e.g. created by hand)", () => {
    expect(nameTakenMessage(pv(), setUid)).toBe(
      'PackageVariant "set-a-app" already exists and is not controlled by this set (it has no controller)',
    );
  });

  it("is no collision when this set controls it (the cache had not seen it yet)", () => {
    const self = { kind: "PackageVariantSet", name: "set", uid: setUid, controller: true };
    expect(nameTakenMessage(pv([self]), setUid)).toBeUndefined();
  });
});
