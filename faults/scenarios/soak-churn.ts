// The soak's churn: one operation per tick over a small fleet, chosen by a seeded PRNG so a run
// is reproducible. Direct PackageVariants (of the `app` blueprint, which has an optional
// injection point) are created, edited (labels, injectors, pipeline) and deleted on a bounded
// set of slots; the ConfigMaps they inject are created, edited and deleted; drafts are proposed
// and published; the upstream publishes a new base-ns revision and the fleet's set upgrades.
import { paths } from "../../bench/kube";
import { fleetSet, SET_NAME } from "../../bench/scenarios/fanout";
import {
  BLUEPRINTS,
  isRendered,
  publishBlueprints,
  UNRELATED_PACKAGE,
  UPSTREAM_PACKAGE,
  upstreamPackage,
  type Fleet,
} from "../../bench/scenarios/fleet";
import { inGit, moveAll } from "../../bench/scenarios/upgrade";
import type { DemoPackage } from "../../hack/demo/packages";
import type { FaultContext } from "../context";
import { pick } from "../soak-stats";

/** Direct PackageVariants soak-0 … soak-5: a bounded set, so the fleet's size stays steady. */
const VARIANT_SLOTS = 6;
/** ConfigMaps soak-endpoints-0 … 2 the direct variants inject. */
const CONFIG_MAPS = 3;
const PV_LABEL = "config.porch.kpt.dev/packagevariant";
/** How long a proposal may take to reach git once the churn stopped. */
const REVIEW_BOUND_MS = 120_000;

export const OPERATION_WEIGHTS = {
  createVariant: 3,
  editVariant: 3,
  deleteVariant: 1.5,
  createConfigMap: 1.5,
  editConfigMap: 2,
  deleteConfigMap: 1,
  propose: 2,
  publish: 2,
  editSet: 1,
  publishUpstream: 0.5,
  upgradeSet: 0.5,
};
export type Operation = keyof typeof OPERATION_WEIGHTS;

export interface Churn {
  /** Runs one operation; resolves with what was done (an operation without a target is "idle"). */
  step(): Promise<string>;
  /**
   * Publishes every variant revision the churn left under review (Proposed), once git has it
   * Proposed: a proposal waits on a person, and the soak ends their reviews before it looks
   * for errors (a variant whose upstream moved meanwhile then upgrades). Resolves with how many.
   */
  endReviews(): Promise<number>;
}

const variantName = (slot: number) => `soak-${slot}`;
const configMapName = (i: number) => `soak-endpoints-${i}`;
const configMaps = (ns: string) => `/api/v1/namespaces/${ns}/configmaps`;

/** base-ns up to v`upTo`: the demo's v1 and v2, then a quota that allows a few more pods each time. */
function upstreamUpTo(upTo: number): DemoPackage {
  const base = upstreamPackage(2);
  const v2 = base.revisions[1];
  const later = Array.from({ length: Math.max(0, upTo - 2) }, (_, i) => ({
    ...v2,
    workspaceName: `v${i + 3}`,
    commitMessage: `base-ns: room for ${51 + i} pods`,
    files: {
      ...v2.files,
      "resourcequota.yaml": v2.files["resourcequota.yaml"].replace('"50"', `"${51 + i}"`),
    },
  }));
  return { ...base, revisions: [...base.revisions, ...later] };
}

export function startChurn(ctx: FaultContext, fleet: Fleet, random: () => number): Churn {
  const { api } = ctx;
  const ns = fleet.ns;
  const liveConfigMaps = new Set<number>();
  let edits = 0;
  let upstreamRevision = 1;
  let setRevision = 1;
  const int = (n: number) => Math.floor(random() * n);
  const choose = <T>(items: T[]): T | undefined =>
    items.length === 0 ? undefined : items[int(items.length)];
  const liveSlots = () =>
    Array.from({ length: VARIANT_SLOTS }, (_, i) => i).filter(i =>
      fleet.variants.items.has(variantName(i)),
    );
  const variantRevisions = (lifecycle: string) =>
    fleet.revisions.values.filter(
      pr => pr.metadata.labels?.[PV_LABEL] !== undefined && pr.spec?.lifecycle === lifecycle,
    );
  const endpoints = (i: number) => ({
    database: `db-${i}-${edits}.soak.internal:5432`,
    cache: `cache-${i}-${edits}.soak.internal:6379`,
  });

  const ops: Record<Operation, () => Promise<string>> = {
    async createVariant() {
      const free = Array.from({ length: VARIANT_SLOTS }, (_, i) => i).filter(
        i => !liveSlots().includes(i),
      );
      const slot = choose(free);
      if (slot === undefined) return ops.editVariant();
      await api.create(paths.pv(ns), {
        apiVersion: "config.porch.kpt.dev/v1alpha1",
        kind: "PackageVariant",
        metadata: { name: variantName(slot) },
        spec: {
          upstream: { repo: BLUEPRINTS, package: UNRELATED_PACKAGE, revision: 1 },
          downstream: { repo: fleet.repos[slot % fleet.repos.length], package: `app-${slot}` },
          injectors: [{ kind: "ConfigMap", name: configMapName(int(CONFIG_MAPS)) }],
        },
      });
      return "createVariant";
    },
    async editVariant() {
      const slot = choose(liveSlots());
      if (slot === undefined) return "idle";
      edits += 1;
      const what = int(3);
      const spec =
        what === 0
          ? { labels: { "soak-edit": String(edits) } }
          : what === 1
            ? { injectors: [{ kind: "ConfigMap", name: configMapName(int(CONFIG_MAPS)) }] }
            : {
                pipeline: {
                  mutators: [
                    {
                      name: "soak-labels",
                      image: "gcr.io/kpt-fn/set-labels:v0.2.0",
                      configMap: { "soak-edit": String(edits) },
                    },
                  ],
                },
              };
      await api.mergePatch(paths.pv(ns), variantName(slot), { spec });
      return `editVariant.${["labels", "injectors", "pipeline"][what]}`;
    },
    async deleteVariant() {
      const slot = choose(liveSlots());
      if (slot === undefined) return ops.createVariant();
      await api.send("DELETE", `${paths.pv(ns)}/${variantName(slot)}`);
      return "deleteVariant";
    },
    async createConfigMap() {
      const i = choose(
        Array.from({ length: CONFIG_MAPS }, (_, k) => k).filter(k => !liveConfigMaps.has(k)),
      );
      if (i === undefined) return ops.editConfigMap();
      await api.create(configMaps(ns), {
        metadata: { name: configMapName(i) },
        data: endpoints(i),
      });
      liveConfigMaps.add(i);
      return "createConfigMap";
    },
    async editConfigMap() {
      const i = choose([...liveConfigMaps]);
      if (i === undefined) return ops.createConfigMap();
      edits += 1;
      await api.mergePatch(configMaps(ns), configMapName(i), { data: endpoints(i) });
      return "editConfigMap";
    },
    async deleteConfigMap() {
      const i = choose([...liveConfigMaps]);
      if (i === undefined) return "idle";
      await api.send("DELETE", `${configMaps(ns)}/${configMapName(i)}`);
      liveConfigMaps.delete(i);
      return "deleteConfigMap";
    },
    async propose() {
      const draft = choose(variantRevisions("Draft").filter(pr => isRendered(fleet, pr)));
      if (!draft) return "idle";
      await api.mergePatch(paths.pr(ns), draft.metadata.name, { spec: { lifecycle: "Proposed" } });
      return "propose";
    },
    async publish() {
      const proposed = choose(variantRevisions("Proposed").filter(inGit("Proposed")));
      if (!proposed) return ops.propose();
      await api.mergePatch(paths.pr(ns), proposed.metadata.name, {
        spec: { lifecycle: "Published" },
      });
      return "publish";
    },
    async editSet() {
      edits += 1;
      // A merge patch replaces the targets list whole: send it all, with one label changed.
      const targets = fleetSet(fleet, setRevision).spec.targets.map(t => ({
        ...t,
        template: { ...t.template, labels: { ...t.template.labels, "soak-gen": String(edits) } },
      }));
      await api.mergePatch(paths.pvs(ns), SET_NAME, { spec: { targets } });
      return "editSet";
    },
    async publishUpstream() {
      upstreamRevision += 1;
      await publishBlueprints(ctx, fleet.blueprintsUrl, [upstreamUpTo(upstreamRevision)]);
      await api.mergePatch(paths.repo(ns), BLUEPRINTS, {
        spec: { sync: { runOnceAt: new Date().toISOString() } },
      });
      return "publishUpstream";
    },
    async upgradeSet() {
      // Only to a revision the operator has mirrored: the set never names one that is not there.
      const mirrored = fleet.revisions.values
        .filter(
          pr =>
            pr.spec?.repository === BLUEPRINTS &&
            pr.spec?.packageName === UPSTREAM_PACKAGE &&
            pr.spec?.lifecycle === "Published",
        )
        .map(pr => Number(pr.status?.revision ?? 0));
      const latest = Math.max(0, ...mirrored);
      if (latest <= setRevision) return ops.publishUpstream();
      setRevision = latest;
      await api.mergePatch(paths.pvs(ns), SET_NAME, { spec: { upstream: { revision: latest } } });
      return "upgradeSet";
    },
  };

  return {
    async endReviews() {
      const proposed = () => variantRevisions("Proposed");
      const waiting = () => proposed().filter(pr => !inGit("Proposed")(pr));
      // One that never gets there stays Proposed, and its condition is what the check reports.
      await fleet.revisions
        .until(
          "every proposal Proposed in git",
          () => (waiting().length === 0 ? true : undefined),
          REVIEW_BOUND_MS,
          () => `${waiting().length} not yet Proposed in git`,
        )
        .catch(() => undefined);
      const names = proposed()
        .filter(inGit("Proposed"))
        .map(pr => pr.metadata.name);
      if (names.length > 0) await moveAll(ctx, fleet, names, "Published");
      return names.length;
    },
    async step() {
      const op = pick(random, OPERATION_WEIGHTS);
      try {
        const done = await ops[op]();
        return done === "idle" ? `idle.${op}` : done;
      } catch (error) {
        // A write the API refused (a conflict, a webhook's denial) is churn too; counted apart.
        ctx.log(`${op} refused: ${error instanceof Error ? error.message : String(error)}`);
        return `refused.${op}`;
      }
    },
  };
}
