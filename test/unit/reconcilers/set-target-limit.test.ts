// A set may ask for at most PORCH_PEPR_SET_MAX_TARGETS PackageVariants (README “Security model”):
// over it the set says so and plans nothing, neither creating nor deleting a variant. The limit is
// read when the module loads, so it is set (by the first import) before the reconciler is imported.
import "./set-target-limit.env";

import { reconcilePackageVariantSet } from "../../../capabilities/package-variant-set/reconcile";
import { PackageVariantKind, PackageVariantSetKind, RepositoryKind } from "../../../crd-types";
import { ConfigMapKind } from "../../../lib/cluster/kinds";
import { testOperator, type TestOperator } from "../../support/operator-context";
import {
  basensUpstream as upstream,
  conditionsOf,
  current,
  NS,
  publishedBasens,
  repositoryObject,
  seed,
  seedSet,
  seedWatchedRevision,
} from "./fixtures";

describe("a set over the target limit", () => {
  let h: TestOperator;
  beforeEach(async () => (h = await testOperator()));
  afterEach(() => h.close());

  it("stalls with TooManyTargets when its selector finds more, and keeps the variants it made", async () => {
    await seedWatchedRevision(h, publishedBasens);
    for (const name of ["c1", "c2", "c3", "c4"])
      await seed(h.cluster, RepositoryKind, {
        ...repositoryObject(name, `https://git.example.com/${name}.git`),
        metadata: { name, namespace: NS, labels: { fleet: name === "c4" ? "later" : "prod" } },
      });
    const set = await seedSet(h, {
      upstream,
      targets: [{ repositorySelector: { matchLabels: { fleet: "prod" } } }],
    });
    await reconcilePackageVariantSet(`${NS}/set`, h.ctx);
    expect(await h.cluster.list(PackageVariantKind, { namespace: NS })).toHaveLength(3);

    // One more repository joins the fleet: four targets, over the limit of three.
    await h.cluster.patch(
      RepositoryKind,
      { namespace: NS, name: "c4" },
      { json: [{ op: "replace", path: "/metadata/labels/fleet", value: "prod" }] },
    );
    await reconcilePackageVariantSet(`${NS}/set`, h.ctx);

    const conditions = conditionsOf(await current(h.cluster, PackageVariantSetKind, set));
    expect(conditions.Stalled).toMatchObject({
      status: "True",
      reason: "TooManyTargets",
      message:
        "spec.targets yield at least 4 PackageVariants, more than 3 (PORCH_PEPR_SET_MAX_TARGETS); split the set or narrow its selectors",
    });
    expect(conditions.Ready).toMatchObject({ status: "False", reason: "TooManyTargets" });
    const variants = await h.cluster.list(PackageVariantKind, { namespace: NS });
    expect(variants.map(v => v.spec?.downstream?.repo).sort()).toEqual(["c1", "c2", "c3"]);
  });

  it("counts a selector's objects × package names before building or listing more", async () => {
    await seedWatchedRevision(h, publishedBasens);
    h.cluster.serve(ConfigMapKind);
    for (const name of ["edge-1", "edge-2"])
      await seed(h.cluster, ConfigMapKind, {
        metadata: { name, namespace: NS, labels: { fleet: "edge" } },
      });
    const packageNames = Array.from({ length: 1_000 }, (_, i) => `pkg-${i}`);
    await seedSet(h, {
      upstream,
      targets: [
        {
          objectSelector: {
            apiVersion: "v1",
            kind: "ConfigMap",
            matchLabels: { fleet: "edge" },
            packageNames,
          },
        },
        { repositorySelector: { matchLabels: { fleet: "prod" } } },
      ],
    });
    const calls = h.callsFrom();
    await reconcilePackageVariantSet(`${NS}/set`, h.ctx);

    const set = await h.cluster.get(PackageVariantSetKind, { namespace: NS, name: "set" });
    expect(conditionsOf(set ?? {}).Stalled).toMatchObject({
      reason: "TooManyTargets",
      // One ConfigMap × 1,000 names is over 3: the second is not read, the next target not listed.
      message:
        "spec.targets yield at least 1000 PackageVariants, more than 3 (PORCH_PEPR_SET_MAX_TARGETS); split the set or narrow its selectors",
    });
    expect(calls().filter(call => /^list (ConfigMap|Repository)/.test(call))).toEqual([
      `list ConfigMap ${NS}`,
    ]);
  });
});
