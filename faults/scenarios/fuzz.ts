// Admission fuzzing: generated PackageVariant, PackageVariantSet, PackageRevision and
// PackageRevisionResources objects (mutations of valid ones, faults/fuzz/) sent to the real API
// server as dry-run creates, which the webhook sees like any other; nothing is persisted. No
// answer may be a 5xx or Pepr's "Action failed with error", every denial must name a field
// path (faults/fuzz/classify.ts), and the webhook process may not restart.
// FAULTS_FUZZ_SEED=<n> replays a campaign; the results name each failing case's index.
import { mapLimit } from "../../lib/controller/concurrency";
import { paths } from "../../bench/kube";
import { round } from "../../bench/metrics";
import type { FaultContext } from "../context";
import { percentile } from "../neighbour-stats";
import { caseAt, type FuzzCase } from "../fuzz/cases";
import { classify, denialText, type Verdict } from "../fuzz/classify";
import { SEEDS, type FuzzKind } from "../fuzz/seeds";
import type { FuzzResult } from "../results";
import type { Scenario } from "../scenario";

const NAMESPACE = "fuzz";
/** Requests in flight: enough to overlap the webhook's work, few enough for a 2-core machine. */
const IN_FLIGHT = 8;
const MAX_FAILURES_KEPT = 20;

const COLLECTION: Record<FuzzKind, (ns: string) => string> = {
  PackageVariant: paths.pv,
  PackageVariantSet: paths.pvs,
  PackageRevision: paths.pr,
  PackageRevisionResources: paths.prr,
};

/** A dry-run create with strict field validation, as `kubectl apply --dry-run=server` sends. */
async function send(ctx: FaultContext, kind: FuzzKind, object: unknown) {
  const path = `${COLLECTION[kind](NAMESPACE)}?dryRun=All&fieldValidation=Strict`;
  const start = performance.now();
  const res = await ctx.api
    .send("POST", path, object)
    .catch((error: unknown) => ({ status: 0, body: String(error) }));
  return { ...res, ms: performance.now() - start };
}

const describe = (c: FuzzCase) =>
  `seed ${c.seed} case ${c.index} (${c.kind}: ${c.mutations.map(m => `${m.kind} at ${m.path.slice(0, 120)}`).join(", ")})`;

/** Counts changes of the webhook process: a new pid, or none alive where there was one. */
function watchWebhook(ctx: FaultContext) {
  const alive = (pid: number | undefined) => {
    if (pid === undefined) return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  let last = ctx.pidOf("admission");
  let restarts = 0;
  const look = () => {
    const now = ctx.pidOf("admission");
    if (now !== last || !alive(now)) restarts += 1;
    last = alive(now) ? now : undefined;
  };
  const timer = setInterval(look, 250);
  return {
    stop: () => {
      clearInterval(timer);
      look();
      return restarts;
    },
  };
}

/** Every valid seed must be admitted, or the mutations do not start from valid objects. */
async function checkSeeds(ctx: FaultContext): Promise<void> {
  for (const [kind, objects] of Object.entries(SEEDS) as [FuzzKind, unknown[]][]) {
    for (const object of objects) {
      const res = await send(ctx, kind, object);
      if (classify(res.status, res.body) !== "allowed")
        throw new Error(`valid ${kind} not admitted: ${res.status} ${denialText(res.body)}`);
    }
  }
}

const SLOWEST_KEPT = 5;

/** Keeps the slowest cases, slowest first, for a reader of p99Ms. */
function keepSlowest(slowest: { ms: number; what: string }[], ms: number, c: FuzzCase) {
  if (slowest.length === SLOWEST_KEPT && ms <= slowest[SLOWEST_KEPT - 1].ms) return;
  slowest.push({ ms, what: describe(c) });
  slowest.sort((a, b) => b.ms - a.ms);
  slowest.length = Math.min(slowest.length, SLOWEST_KEPT);
}

async function run(ctx: FaultContext, cases: number): Promise<FuzzResult> {
  const started = performance.now();
  const seed = Number(process.env.FAULTS_FUZZ_SEED ?? Math.floor(Math.random() * 2 ** 32));
  ctx.log(`seed ${seed}: ${cases} cases, ${IN_FLIGHT} in flight`);
  await ctx.api.send("POST", paths.namespaces, { metadata: { name: NAMESPACE } });
  await checkSeeds(ctx);
  const counts: Record<Verdict, number> = {
    allowed: 0,
    denied: 0,
    serverError: 0,
    unnamedDenial: 0,
  };
  const failures: string[] = [];
  const times: number[] = [];
  const slowest: { ms: number; what: string }[] = [];
  const webhook = watchWebhook(ctx);
  let restarts = 0;
  try {
    await mapLimit(
      Array.from({ length: cases }, (_, i) => i),
      IN_FLIGHT,
      async index => {
        // Made when sent, not all up front: a case may hold a megabyte string.
        const c = caseAt(seed, index);
        const res = await send(ctx, c.kind, c.object);
        const verdict = classify(res.status, res.body);
        counts[verdict] += 1;
        times.push(res.ms);
        keepSlowest(slowest, res.ms, c);
        if (verdict === "serverError" || verdict === "unnamedDenial") {
          const line = `${verdict}: ${describe(c)}: ${res.status} ${denialText(res.body).slice(0, 300)}`;
          ctx.log(line);
          if (failures.length < MAX_FAILURES_KEPT) failures.push(line);
        }
        if ((index + 1) % 1000 === 0) ctx.log(`${index + 1} cases sent`);
      },
    );
  } finally {
    restarts = webhook.stop();
  }
  times.sort((a, b) => a - b);
  return {
    cases,
    serverErrors: counts.serverError,
    unnamedDenials: counts.unnamedDenial,
    webhookRestarts: restarts,
    p99Ms: round(percentile(times, 99), 1),
    seconds: Math.round((performance.now() - started) / 1000),
    seed,
    allowed: counts.allowed,
    denied: counts.denied,
    maxMs: round(times[times.length - 1] ?? 0, 1),
    slowest: slowest.map(s => `${Math.round(s.ms)} ms: ${s.what}`),
    failures,
  };
}

export const fuzz: Scenario<"fuzz"> = {
  run: (ctx, sizes) => run(ctx, sizes.fuzz.cases),
  zeros: ["serverErrors", "unnamedDenials", "webhookRestarts"],
  check: (result, sizes) =>
    result.cases === sizes.fuzz.cases ? [] : [`${result.cases} cases of ${sizes.fuzz.cases}`],
};
