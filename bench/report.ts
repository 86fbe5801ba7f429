// Results: the JSON of every figure, a markdown table of the headline ratios and the details,
// and the chart of time against N for ours and the floor.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderChart, type Series } from "./chart";
import type { ApiFloor, GitFloor, RealFloor } from "./floor";
import { round, sum, type Machine } from "./metrics";
import type { AdmissionLatency } from "./scenarios/admission";
import type { Cost } from "./scenarios/context";
import type { EventCosts } from "./scenarios/events";
import type { StepResult } from "./scenarios/fanout";

export interface SizeResult {
  n: number;
  fanOut?: StepResult;
  publish?: StepResult;
  /** A full sync of the deployment repositories after the publish (see syncDeployments). */
  sync?: StepResult;
  upgrade?: StepResult;
  /** The fleet scenario's fan-out (context, prepended mutator, injection), its own environment. */
  fleet?: StepResult;
  /** The module installed as Pods on the local node (isomorphic-git, the generated limits). */
  installed?: Phases;
  /** Errors that stopped a scenario of its own environment (fleet, installed), by scenario. */
  scenarioErrors?: Record<string, string>;
  events?: EventCosts;
  admission?: AdmissionLatency;
  /** `synthesized`: drafts a cut-short fan-out did not make, copied from one it made. */
  floor?: { api?: ApiFloor; git?: GitFloor; real?: RealFloor; synthesized?: number };
  /** The first error that stopped this size's scenarios. */
  error?: string;
}

/** The steps of a fan-out followed by an upgrade, as one environment runs them. */
export type Phases = Pick<SizeResult, "fanOut" | "publish" | "sync" | "upgrade">;

export interface BenchResults {
  machine: Machine;
  date: string;
  scenarios: string[];
  sizes: SizeResult[];
}

const s = (ms: number) => round(ms / 1000, 2);

/** Seconds of the floors: fan-out = all three kinds + git; upgrade = revisions + files + git. */
export function floors(r: SizeResult): { fanOut?: number; upgrade?: number } {
  const api = r.floor?.api?.fluent;
  const git = r.floor?.git?.ms;
  if (!api || git === undefined) return {};
  return { fanOut: s(api.total + git), upgrade: s(api.revisions + api.resources + git) };
}

/** Seconds of the real floors (bench/floor.ts): API and git overlapped, git batched. */
export function realFloors(r: SizeResult): { fanOut?: number; upgrade?: number } {
  const real = r.floor?.real;
  return real ? { fanOut: s(real.fanOut.ms), upgrade: s(real.upgrade.ms) } : {};
}

const ratio = (ours?: number, floor?: number) =>
  ours !== undefined && floor ? round(ours / floor, 2) : undefined;

const fanOutTime = (r?: SizeResult) => r?.fanOut?.timeline.rendered;
const upgradeTime = (r?: SizeResult) => r?.upgrade?.timeline.rendered;
const watcherRss = (step?: StepResult) => step?.cost.usage.processes.watcher?.peakRssMb;

/** The most of `per` over the steps that ran (undefined when none did). */
function worst(steps: (StepResult | undefined)[], per: (step: StepResult) => number | undefined) {
  const values = steps.flatMap(step => {
    const v = step && per(step);
    return v === undefined || Number.isNaN(v) ? [] : [v];
  });
  return values.length > 0 ? Math.max(...values) : undefined;
}

/** Per variant of `n`: a fan-out's, upgrade's or fleet's requests or pushes. */
const perVariant = (n: number, count?: number) =>
  count === undefined ? undefined : round(count / n, 2);

/**
 * Time per variant at `big` over time per variant at `small` (1 = linear). Undefined without
 * both.
 */
export function perVariantGrowth(
  small?: { n: number; seconds?: number },
  big?: { n: number; seconds?: number },
): number | undefined {
  if (!small?.seconds || !big?.seconds) return undefined;
  return round(big.seconds / big.n / (small.seconds / small.n), 2);
}

/** The size the issue's figures are read at: N = 1000 when it ran, else the largest below 10,000. */
export function headlineSize(results: BenchResults): SizeResult | undefined {
  const below = results.sizes.filter(r => r.n < 10_000).sort((a, b) => b.n - a.n);
  return results.sizes.find(r => r.n === 1000) ?? below[0];
}

/**
 * The issue's figures (issue 29, read at headlineSize; `n10000` from an N = 10,000 run), then the
 * per-size ratios and growths. API requests, pushes and RSS are the worst of the steps measured:
 * fan-out, upgrade and the fleet's fan-out (RSS: also the publish and the sync).
 */
export function headline(results: BenchResults) {
  const at = (n: number) => results.sizes.find(r => r.n === n);
  const growth = (pick: (r: SizeResult) => number | undefined) => {
    const [a, b] = [at(100), at(1000)].map(r => (r ? pick(r) : undefined));
    return a && b ? round(b / a / 10, 2) : undefined;
  };
  const main = headlineSize(results);
  const counted = (r?: SizeResult) => [r?.fanOut, r?.upgrade, r?.fleet];
  const big = at(10_000);
  const admission = (r: SizeResult) => r.admission?.webhook["50"]?.p99;
  const bySize = (pick: (r: SizeResult) => unknown) =>
    Object.fromEntries(results.sizes.map(r => [r.n, pick(r)]));
  return {
    n: main?.n,
    fanOutSeconds: fanOutTime(main),
    upgradeSeconds: upgradeTime(main),
    publishSeconds: main?.publish?.timeline.published,
    realFloorRatio: {
      fanOut: main && ratio(fanOutTime(main), realFloors(main).fanOut),
      upgrade: main && ratio(upgradeTime(main), realFloors(main).upgrade),
    },
    apiRequestsPerVariant: worst(counted(main), step =>
      perVariant(main!.n, step.cost.requestTotal),
    ),
    pushesPerVariant: worst(counted(main), step => perVariant(main!.n, step.cost.pushes)),
    fleetFanOutRatio: main && ratio(main.fleet?.timeline.rendered, fanOutTime(main)),
    installedFanOutSeconds: main?.installed?.fanOut?.timeline.rendered,
    peakRssMb: worst(
      [main?.fanOut, main?.publish, main?.sync, main?.upgrade, main?.fleet],
      watcherRss,
    ),
    n10000: {
      seconds: fanOutTime(big),
      peakRssMb: watcherRss(big?.fanOut),
      perVariantGrowth: perVariantGrowth(
        { n: 1000, seconds: fanOutTime(at(1000)) },
        { n: 10_000, seconds: fanOutTime(big) },
      ),
    },
    watcherRss: bySize(r =>
      [r.fanOut, r.publish, r.upgrade].map(step => cell(watcherRss(step))).join(" / "),
    ),
    admissionRatio: bySize(r => ratio(admission(r), r.admission?.api["50"]?.p99)),
    fanOutRatio: bySize(r => ratio(fanOutTime(r), floors(r).fanOut)),
    upgradeRatio: bySize(r => ratio(upgradeTime(r), floors(r).upgrade)),
    realFanOutRatio: bySize(r => ratio(fanOutTime(r), realFloors(r).fanOut)),
    realUpgradeRatio: bySize(r => ratio(upgradeTime(r), realFloors(r).upgrade)),
    fleetRatio: bySize(r => ratio(r.fleet?.timeline.rendered, fanOutTime(r))),
    pushesBySize: bySize(r => perVariant(r.n, r.fanOut?.cost.pushes)),
    growth: {
      fanOut: growth(fanOutTime),
      fanOutFloor: growth(r => floors(r).fanOut),
      upgrade: growth(upgradeTime),
      upgradeFloor: growth(r => floors(r).upgrade),
    },
  };
}

/** "API s ∥ git s (pushes)" of a real floor run. */
const realParts = (run?: { apiMs: number; gitMs: number; pushes: number }) =>
  run && `${s(run.apiMs)} ∥ ${s(run.gitMs)} (${run.pushes})`;

/** The last columns of the fan-out's and the upgrade's tables: each floor and ours over it. */
const FLOOR_HEAD = [
  "today's floor",
  "ours ÷ today's floor",
  "real floor: API ∥ git (pushes)",
  "real floor",
  "ours ÷ real floor",
];

/** FLOOR_HEAD's cells for `step` at `r`; the ratios by N are headline's. */
const floorCells = (
  r: SizeResult,
  step: "fanOut" | "upgrade",
  ratio: Record<number, unknown>,
  realRatio: Record<number, unknown>,
) => [
  floors(r)[step],
  ratio[r.n],
  realParts(r.floor?.real?.[step]),
  realFloors(r)[step],
  realRatio[r.n],
];

const cell = (v: unknown) => (v === undefined || Number.isNaN(v) ? "–" : String(v));
const row = (cells: unknown[]) => `| ${cells.map(cell).join(" | ")} |`;
const table = (head: string[], rows: unknown[][]) =>
  [row(head), row(head.map(() => "---")), ...rows.map(row)].join("\n");

const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .sort()
    .map(([k, v]) => `${k} ${v}`)
    .join(", ") || "0";

function resourceRows(r: SizeResult): unknown[][] {
  const steps: [string, Cost | undefined][] = [
    ["fan-out", r.fanOut?.cost],
    ["publish", r.publish?.cost],
    ["sync", r.sync?.cost],
    ["upgrade", r.upgrade?.cost],
    ["fleet fan-out", r.fleet?.cost],
    ["installed fan-out", r.installed?.fanOut?.cost],
    ["installed publish", r.installed?.publish?.cost],
    ["installed sync", r.installed?.sync?.cost],
    ["installed upgrade", r.installed?.upgrade?.cost],
  ];
  return steps
    .filter((e): e is [string, Cost] => e[1] !== undefined)
    .map(([name, c]) => {
      const p = c.usage.processes;
      return [
        r.n,
        name,
        `${p.watcher?.cpuSeconds} (+${p.watcher?.childCpuSeconds} git)`,
        p.watcher?.peakRssMb,
        p.admission?.cpuSeconds,
        p.admission?.peakRssMb,
        p.apiserver?.cpuSeconds,
        p.etcd?.cpuSeconds,
        `${p.git?.cpuSeconds} (+${p.git?.childCpuSeconds})`,
        p.bench?.cpuSeconds,
        `${Math.round(c.usage.machineBusy * 100)}% (others ${c.usage.otherCpuSeconds} s)`,
        c.requestTotal,
        round(c.requestTotal / r.n, 1),
        c.pushes === undefined ? undefined : round(c.pushes / r.n, 2),
        sum(c.reconciles),
      ];
    });
}

export function markdown(results: BenchResults): string {
  const h = headline(results);
  const sizes = results.sizes;
  const ns = sizes.map(r => `N = ${r.n}`);
  const perSize = (label: string, values: Record<number, unknown>, target: string) => [
    label,
    ...sizes.map(r => values[r.n]),
    target,
  ];
  const once = (label: string, value: string, target: string) => [
    label,
    value,
    ...sizes.slice(1).map(() => ""),
    target,
  ];
  const m = results.machine;
  const lines = [
    "# porch-pepr benchmark",
    "",
    `${results.date} · commit ${m.git} · ${m.cpuModel}, ${m.cores} cores, ${m.memoryGb} GB · Node ${m.node} · load average at start ${m.loadAverage.join(" ")}`,
    "",
    "Times are seconds from the triggering write. Floors are measured in the same run (bench/floor.ts).",
    "",
    "## Headline",
    "",
    `Issue 29's figures at N = ${cell(h.n)} (the worst of fan-out, upgrade and the fleet's fan-out where several ran; N = 10,000 from its own run):`,
    "",
    table(
      ["figure", "value", "target"],
      [
        ["fan-out, embedded default, s", h.fanOutSeconds, "≤ 100"],
        ["upgrade, embedded default, s", h.upgradeSeconds, "≤ 130"],
        ["publish the proposals: all Published, s", h.publishSeconds, "≤ 60"],
        [
          "fleet fan-out (context + mutator + injection) ÷ plain fan-out",
          h.fleetFanOutRatio,
          "≤ 1.2",
        ],
        ["installed (Pods, isomorphic-git) fan-out, s", h.installedFanOutSeconds, "≤ 250"],
        [
          "ours ÷ real floor, fan-out / upgrade",
          `${cell(h.realFloorRatio.fanOut)} / ${cell(h.realFloorRatio.upgrade)}`,
          "≤ 2.5",
        ],
        ["API requests per variant", h.apiRequestsPerVariant, "≤ 8"],
        ["git pushes per variant", h.pushesPerVariant, "≤ 0.1"],
        ["watcher peak RSS, every scenario, MB", h.peakRssMb, "≤ 224"],
        [
          "N = 10,000 fan-out: s / peak RSS MB / per-variant time ÷ N = 1000's",
          [h.n10000.seconds, h.n10000.peakRssMb, h.n10000.perVariantGrowth].map(cell).join(" / "),
          "≤ 1,100 / ≤ 512 / ≤ 1.1",
        ],
      ],
    ),
    "",
    "By size:",
    "",
    table(
      ["figure", ...ns, "target"],
      [
        perSize("watcher peak RSS MB: fan-out / publish / upgrade", h.watcherRss, "≤ 224"),
        perSize("fan-out: ours ÷ real floor", h.realFanOutRatio, "≤ 2.5"),
        perSize("upgrade: ours ÷ real floor", h.realUpgradeRatio, "≤ 2.5"),
        perSize(
          "fan-out: ours ÷ today's floor (API then git, one push per branch)",
          h.fanOutRatio,
          "",
        ),
        perSize("upgrade: ours ÷ today's floor", h.upgradeRatio, ""),
        perSize("fleet fan-out ÷ plain fan-out", h.fleetRatio, "≤ 1.2"),
        perSize("fan-out: git pushes per variant", h.pushesBySize, "≤ 0.1"),
        once(
          "fan-out growth 100 → 1000 (ours / today's floor)",
          `${cell(h.growth.fanOut)} / ${cell(h.growth.fanOutFloor)}`,
          "≤ 1.15",
        ),
        once(
          "upgrade growth 100 → 1000 (ours / today's floor)",
          `${cell(h.growth.upgrade)} / ${cell(h.growth.upgradeFloor)}`,
          "≤ 1.15",
        ),
        perSize("admission p99 at 50 in flight ÷ API dry-run p99", h.admissionRatio, "≤ 1.2"),
      ],
    ),
    "",
    "## Fan-out and its floor",
    "",
    table(
      [
        "N",
        "variants exist",
        "all Ready",
        "all rendered",
        "settled",
        "API floor (fluent client)",
        "API floor (keep-alive)",
        "git floor",
        ...FLOOR_HEAD,
      ],
      sizes.map(r => {
        const t = r.fanOut?.timeline ?? {};
        const api = r.floor?.api;
        return [
          r.n,
          t.variants,
          t.ready,
          t.rendered,
          t.settled,
          api && s(api.fluent.total),
          api && s(api.keepAlive.total),
          r.floor?.git && s(r.floor.git.ms),
          ...floorCells(r, "fanOut", h.fanOutRatio, h.realFanOutRatio),
        ];
      }),
    ),
    "",
    "## Upgrade propagation (published downstreams → upgrade drafts)",
    "",
    table(
      [
        "N",
        "publish: all Proposed",
        "all Published",
        "sync: all synced",
        "sync settled",
        "upgrade drafts exist",
        "all rendered",
        "settled",
        ...FLOOR_HEAD,
      ],
      sizes.map(r => {
        const p = r.publish?.timeline ?? {};
        const y = r.sync?.timeline ?? {};
        const u = r.upgrade?.timeline ?? {};
        return [
          r.n,
          p.proposed,
          p.published,
          y.synced,
          y.settled,
          u.drafts,
          u.rendered,
          u.settled,
          ...floorCells(r, "upgrade", h.upgradeRatio, h.realUpgradeRatio),
        ];
      }),
    ),
    "",
    "## Fleet and installed scenarios",
    "",
    "Fleet: every variant with a package context key, a prepended set-labels mutator and an injected ConfigMap, in an environment of its own. Installed (`--scenarios installed`, root): the same fan-out and upgrade on the module as Pods on a real local node (`npx pepr deploy`, isomorphic-git, the generated limits: 500m CPU, 512Mi). Its watcher's memory is read from the container's cgroup: the peak is cgroup v1 memory.max_usage_in_bytes (page cache included, what the limit is charged with), the working set (usage − inactive file cache, as the kubelet reports it) is sampled every second; restarts are the container's restartCount.",
    "",
    table(
      [
        "N",
        "scenario",
        "all rendered",
        "settled",
        "÷ plain fan-out",
        "API requests per variant",
        "git pushes per variant",
        "watcher Pod peak memory MB: cgroup / working set",
        "watcher restarts",
      ],
      sizes.flatMap(r =>
        (
          [
            ["fleet fan-out", r.fleet],
            ["installed fan-out", r.installed?.fanOut],
            ["installed upgrade", r.installed?.upgrade],
          ] as [string, StepResult | undefined][]
        )
          .filter((e): e is [string, StepResult] => e[1] !== undefined)
          .map(([name, step]) => [
            r.n,
            name,
            step.timeline.rendered,
            step.timeline.settled,
            name === "installed upgrade" ? undefined : ratio(step.timeline.rendered, fanOutTime(r)),
            perVariant(r.n, step.cost.requestTotal),
            perVariant(r.n, step.cost.pushes),
            step.cost.pod && `${step.cost.pod.peakMemoryMb} / ${step.cost.pod.peakWorkingSetMb}`,
            step.cost.pod &&
              `${step.cost.pod.restarts}${step.cost.pod.lastTermination ? ` (${step.cost.pod.lastTermination})` : ""}`,
          ]),
      ),
    ),
    "",
    "## Event cost (from the change until the operator is quiet)",
    "",
    table(
      ["N", "event", "reconciles", "API requests (operator)", "controller CPU s"],
      sizes.flatMap(r =>
        Object.entries(r.events ?? {}).map(([name, c]) => [
          r.n,
          name,
          counts(c.reconciles),
          `${c.requestTotal}: ${counts(c.requests)}`,
          c.usage.processes.watcher?.cpuSeconds,
        ]),
      ),
    ),
    "",
    "## Admission latency, ms (PackageVariantSet with ten CEL expressions)",
    "",
    table(
      [
        "N",
        "in flight",
        "webhook p50",
        "webhook p99",
        "API dry run p50",
        "API dry run p99",
        "API floor p50",
        "API floor p99",
      ],
      sizes.flatMap(r =>
        Object.keys(r.admission?.webhook ?? {}).map(c => {
          const a = r.admission!;
          return [
            r.n,
            c,
            a.webhook[c].p50,
            a.webhook[c].p99,
            a.api[c].p50,
            a.api[c].p99,
            a.apiFloor[c].p50,
            a.apiFloor[c].p99,
          ];
        }),
      ),
    ),
    "",
    "## Resources per scenario",
    "",
    table(
      [
        "N",
        "scenario",
        "controller CPU s",
        "controller peak RSS MB",
        "admission CPU s",
        "admission peak RSS MB",
        "apiserver CPU s",
        "etcd CPU s",
        "git server CPU s",
        "bench CPU s",
        "machine busy",
        "API requests",
        "per variant",
        "git pushes per variant",
        "reconciles",
      ],
      sizes.flatMap(resourceRows),
    ),
  ];
  const errors = sizes.flatMap(r => [
    ...(r.error ? [`- N = ${r.n}: ${r.error}`] : []),
    ...(r.fleet?.error ? [`- N = ${r.n}, fleet: ${r.fleet.error}`] : []),
    ...Object.entries(r.scenarioErrors ?? {}).map(([name, e]) => `- N = ${r.n}, ${name}: ${e}`),
  ]);
  if (errors.length > 0) lines.push("", "## Errors", "", ...errors);
  return `${lines.join("\n")}\n`;
}

const RED: [number, number, number] = [200, 60, 40];
const BLUE: [number, number, number] = [40, 90, 200];
const ORANGE: [number, number, number] = [230, 150, 30];
const TEAL: [number, number, number] = [30, 160, 150];

function chartOf(results: BenchResults): Buffer | undefined {
  const points = (pick: (r: SizeResult) => number | undefined): [number, number][] =>
    results.sizes.flatMap(r => {
      const v = pick(r);
      return v ? [[r.n, v] as [number, number]] : [];
    });
  const series: Series[] = [
    { label: "fan-out: ours", color: RED, points: points(r => r.fanOut?.timeline.rendered) },
    {
      label: "fan-out: floor (API + git)",
      color: RED,
      dashed: true,
      points: points(r => floors(r).fanOut),
    },
    { label: "upgrade: ours", color: BLUE, points: points(r => r.upgrade?.timeline.rendered) },
    { label: "upgrade: floor", color: BLUE, dashed: true, points: points(r => floors(r).upgrade) },
    {
      label: "fan-out: real floor",
      color: ORANGE,
      dashed: true,
      points: points(r => realFloors(r).fanOut),
    },
    {
      label: "upgrade: real floor",
      color: TEAL,
      dashed: true,
      points: points(r => realFloors(r).upgrade),
    },
  ].filter(x => x.points.length > 0);
  if (series.length === 0) return undefined;
  const { cores, cpuModel } = results.machine;
  return renderChart(series, {
    title: `Seconds to N rendered drafts, ${cores} cores (${cpuModel.split(" @")[0]})`,
    xLabel: "N variants",
    yLabel: "seconds",
  });
}

/** Every headline key kept in the JSON: a figure not measured is null, not left out. */
export const withNulls = <T>(value: T): T =>
  JSON.parse(JSON.stringify(value, (_, v: unknown) => (v === undefined ? null : v))) as T;

/** Writes results.json, results.md and time-vs-n.png into `dir`. */
export function writeResults(dir: string, results: BenchResults): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "results.json"),
    `${JSON.stringify({ ...results, headline: withNulls(headline(results)) }, null, 2)}\n`,
  );
  writeFileSync(join(dir, "results.md"), markdown(results));
  const png = chartOf(results);
  if (png) writeFileSync(join(dir, "time-vs-n.png"), png);
}
