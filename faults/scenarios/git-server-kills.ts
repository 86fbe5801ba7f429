// The git server process SIGKILLed mid-push (faults/push-killer.ts) while a PackageVariantSet fans
// out to N targets, the drafts are proposed and published, and all N are upgraded; once, before
// the fan-out, it stays down for `downSeconds` while the set is created and the deployment
// repositories are asked to sync: the Repositories, the new drafts and their PackageVariants
// must then say Unavailable. Afterwards git must hold every write the API reports done, and no
// half-written revision (faults/git-audit.ts).
import { conditionOf, paths, type KubeObject } from "../../bench/kube";
import { settled } from "../../bench/scenarios/context";
import { fleetSet, SET_NAME, variantDrafts } from "../../bench/scenarios/fanout";
import { createFleet, type Fleet } from "../../bench/scenarios/fleet";
import { mapLimit } from "../../lib/controller/concurrency";
import { auditFleet } from "../audit";
import { sleep, type FaultContext } from "../context";
import { auditGitWrites } from "../git-audit";
import { startPushKiller } from "../push-killer";
import type { GitServerKillsResult } from "../results";
import type { Scenario } from "../scenario";
import { publishUpstreamV2 } from "../../bench/scenarios/upgrade";
import { draftsRendered, publishAll } from "./fleet-phases";

type Sizes = { cycles: number; variants: number; downSeconds: number };

const unavailable = (obj: KubeObject | undefined) => {
  const ready = conditionOf(obj, "Ready");
  return ready?.status === "False" && ready.reason === "Unavailable";
};

interface Outage {
  /** The most objects of each kind seen saying Unavailable at once while the server was down. */
  repositories: number;
  revisions: number;
  variants: number;
}

/**
 * Kills the server, has every deployment repository sync and creates the set while it is down,
 * and watches the conditions for `downSeconds`; then starts the server again.
 */
async function longOutage(ctx: FaultContext, fleet: Fleet, downSeconds: number): Promise<Outage> {
  await ctx.env.git.kill();
  const end = performance.now() + downSeconds * 1000;
  ctx.log(`git server down for ${downSeconds}s`);
  const at = new Date().toISOString();
  await mapLimit(fleet.repos, 10, name =>
    ctx.api.mergePatch(paths.repo(fleet.ns), name, { spec: { sync: { runOnceAt: at } } }),
  );
  await ctx.api.create(paths.pvs(fleet.ns), fleetSet(fleet, 1));
  const seen: Outage = { repositories: 0, revisions: 0, variants: 0 };
  while (performance.now() < end) {
    const now: Outage = {
      repositories: fleet.repos.filter(r => unavailable(fleet.repositories.items.get(r))).length,
      revisions: variantDrafts(fleet, "cloneFrom").filter(unavailable).length,
      variants: fleet.variants.values.filter(unavailable).length,
    };
    for (const key of Object.keys(seen) as (keyof Outage)[])
      seen[key] = Math.max(seen[key], now[key]);
    await sleep(1000);
  }
  ctx.log(`while down, Unavailable at most: ${JSON.stringify(seen)}; restarting the git server`);
  await ctx.env.git.restart();
  return seen;
}

type Phase = (ctx: FaultContext, fleet: Fleet) => Promise<void>;

/** The upgrade to upstream v2; v2 itself is published before (`prepare`), without kills. */
const upgradeToV2: Phase = async (ctx, fleet) => {
  await ctx.api.mergePatch(paths.pvs(fleet.ns), SET_NAME, { spec: { upstream: { revision: 2 } } });
  await draftsRendered(fleet, "upgrade");
};

/**
 * Share of the mid-push kills each phase gets; kills a phase did not use carry over. A phase's
 * `prepare` runs before its killer starts: the scenario's own pushes (upstream v2) are not the
 * operator's and must not fail.
 */
const PHASES: [string, number, Phase, Phase?][] = [
  ["fan-out", 0.4, (_ctx, fleet) => draftsRendered(fleet, "cloneFrom")],
  ["publish", 0.3, publishAll],
  ["upgrade", 0.3, upgradeToV2, publishUpstreamV2],
];

async function run(ctx: FaultContext, sizes: Sizes): Promise<GitServerKillsResult> {
  const started = performance.now();
  const fleet = await createFleet(ctx, sizes.variants, "faults");
  try {
    const outage = await longOutage(ctx, fleet, sizes.downSeconds);
    let kills = 0;
    for (const [i, [name, share, phase, prepare]] of PHASES.entries()) {
      const last = i === PHASES.length - 1;
      await prepare?.(ctx, fleet);
      const quota = last ? sizes.cycles - kills : Math.round(sizes.cycles * share);
      ctx.log(`${name}: ${quota} kills mid-push while it runs`);
      const killer = startPushKiller(ctx, quota, kills);
      await phase(ctx, fleet);
      await killer.stop();
      kills += killer.kills;
    }
    await settled(ctx);
    const fleetAudit = await auditFleet(ctx, fleet, { openDrafts: true });
    const git = await auditGitWrites(ctx, fleet);
    for (const line of [...fleetAudit.details, ...git.details]) ctx.log(line);
    return {
      cycles: kills,
      lostCommits: git.lostCommits,
      halfWritten: git.halfWritten,
      downSeconds: sizes.downSeconds,
      unavailableReported:
        outage.repositories === fleet.repos.length &&
        outage.revisions === fleet.n &&
        outage.variants === fleet.n,
      unavailableRepositories: outage.repositories,
      unavailableRevisions: outage.revisions,
      unavailableVariants: outage.variants,
      variants: fleetAudit.variants,
      lost: fleetAudit.lost,
      unrendered: fleetAudit.unrendered,
      missingTags: fleetAudit.missingTags,
      seconds: Math.round((performance.now() - started) / 1000),
    };
  } finally {
    fleet.stop();
  }
}

export const gitServerKills: Scenario<"gitServerKills"> = {
  run: (ctx, sizes) => run(ctx, sizes.gitServerKills),
  zeros: ["lostCommits", "halfWritten", "lost", "unrendered", "missingTags"],
  check: (result, sizes) => [
    ...(result.cycles === sizes.gitServerKills.cycles
      ? []
      : [`${result.cycles} kills mid-push of ${sizes.gitServerKills.cycles}`]),
    ...(result.unavailableReported
      ? []
      : [
          `while the git server was down, Unavailable was said by ${result.unavailableRepositories} repositories, ${result.unavailableRevisions} drafts and ${result.unavailableVariants} PackageVariants at most`,
        ]),
    ...(result.variants === sizes.gitServerKills.variants
      ? []
      : [`${result.variants} PackageVariants, expected ${sizes.gitServerKills.variants}`]),
  ],
};
