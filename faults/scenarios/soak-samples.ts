// What the soak watches: the controller process's RSS and open file descriptors from /proc, the
// work queues' depth from its /metrics (pepr_queue_depth_<controller>), the fleet's size from
// the API, and at the end the objects whose conditions report an error.
import { get } from "node:https";
import { paths, type KubeObject } from "../../bench/kube";
import { openFds, parseProm, statusKb } from "../../bench/metrics";
import type { Fleet } from "../../bench/scenarios/fleet";
import type { FaultContext } from "../context";
import { errorConditions, type StatusCondition } from "../soak-stats";

export interface SoakSample {
  /** Seconds since the churn started. */
  t: number;
  pid: number | undefined;
  rssMb: number;
  fds: number;
  /** Keys queued, running or delayed over every controller (undefined: /metrics unanswered). */
  queueDepth?: number;
  /** Repositories, PackageVariants, PackageVariantSets and PackageRevisions in the namespace. */
  objects: number;
}

/** The watcher's /metrics text. */
function metricsText(ctx: FaultContext): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = get(
      `https://localhost:${ctx.env.module.ports.watcher}/metrics`,
      { ca: ctx.ca, timeout: 5000 },
      res => {
        let body = "";
        res.on("data", c => (body += c));
        res.on("end", () => resolve(body));
      },
    );
    req.on("timeout", () => req.destroy(new Error("/metrics timed out")));
    req.on("error", reject);
  });
}

/** Depth now and highest depth so far, summed over the controllers. */
export async function queueDepths(ctx: FaultContext): Promise<{ depth: number; peak: number }> {
  let depth = 0;
  let peak = 0;
  for (const s of parseProm(await metricsText(ctx))) {
    if (/^pepr_queue_depth_\w+_peak$/.test(s.name)) peak += s.value;
    else if (s.name.startsWith("pepr_queue_depth_")) depth += s.value;
  }
  return { depth, peak };
}

export async function sample(ctx: FaultContext, fleet: Fleet, t: number): Promise<SoakSample> {
  const pid = ctx.pidOf("watcher");
  const queueDepth = await queueDepths(ctx).then(
    q => q.depth,
    () => undefined,
  );
  return {
    t,
    pid,
    rssMb: pid ? statusKb(pid, "VmRSS") / 1024 : 0,
    fds: pid ? openFds(pid) : 0,
    queueDepth,
    // the one set of the fleet counts as 1
    objects:
      fleet.repositories.items.size + fleet.variants.items.size + fleet.revisions.items.size + 1,
  };
}

/** One line per object of the namespace whose conditions report an error: "Kind name: Type=Status Reason: message". */
export async function leftoverErrors(ctx: FaultContext, ns: string): Promise<string[]> {
  const lists = await Promise.all(
    [paths.repo(ns), paths.pv(ns), paths.pvs(ns), paths.pr(ns)].map(p =>
      ctx.api.json<{ kind: string; items: KubeObject[] }>("GET", p),
    ),
  );
  const found: string[] = [];
  for (const list of lists)
    for (const obj of list.items) {
      const errors = errorConditions((obj.status?.conditions ?? []) as StatusCondition[]);
      if (errors.length === 0) continue;
      const what = errors.map(c => `${c.type}=${c.status} ${c.reason ?? ""}: ${c.message ?? ""}`);
      found.push(`${list.kind.replace(/List$/, "")} ${obj.metadata.name}: ${what.join("; ")}`);
    }
  return found;
}
