// Results: the JSON of every figure, a markdown table of the headline ratios and the details,
// and the chart of time against N for ours and the floor.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { renderChart, type Series } from "./chart";
import type { ApiFloor, GitFloor } from "./floor";
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
  events?: EventCosts;
  admission?: AdmissionLatency;
  /** `synthesized`: drafts a cut-short fan-out did not make, copied from one it made. */
  floor?: { api?: ApiFloor; git?: GitFloor; synthesized?: number };
  /** The first error that stopped this size's scenarios. */
  error?: string;
}

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

const ratio = (ours?: number, floor?: number) =>
  ours !== undefined && floor ? round(ours / floor, 2) : undefined;

export function headline(results: BenchResults) {
  const at = (n: number) => results.sizes.find(r => r.n === n);
  const growth = (pick: (r: SizeResult) => number | undefined) => {
    const [a, b] = [at(100), at(1000)].map(r => (r ? pick(r) : undefined));
    return a && b ? round(b / a / 10, 2) : undefined;
  };
  const fanOut = (r: SizeResult) => r.fanOut?.timeline.rendered;
  const upgrade = (r: SizeResult) => r.upgrade?.timeline.rendered;
  const rss = (step?: StepResult) => step?.cost.usage.processes.watcher?.peakRssMb;
  const admission = (r: SizeResult) => r.admission?.webhook["50"]?.p99;
  return {
    watcherRss: Object.fromEntries(
      results.sizes.map(r => [
        r.n,
        [r.fanOut, r.publish, r.upgrade].map(step => cell(rss(step))).join(" / "),
      ]),
    ),
    admissionRatio: Object.fromEntries(
      results.sizes.map(r => [r.n, ratio(admission(r), r.admission?.api["50"]?.p99)]),
    ),
    fanOutRatio: Object.fromEntries(
      results.sizes.map(r => [r.n, ratio(fanOut(r), floors(r).fanOut)]),
    ),
    upgradeRatio: Object.fromEntries(
      results.sizes.map(r => [r.n, ratio(upgrade(r), floors(r).upgrade)]),
    ),
    pushesPerVariant: Object.fromEntries(
      results.sizes.map(r => [
        r.n,
        r.fanOut?.cost.pushes === undefined ? undefined : round(r.fanOut.cost.pushes / r.n, 2),
      ]),
    ),
    growth: {
      fanOut: growth(fanOut),
      fanOutFloor: growth(r => floors(r).fanOut),
      upgrade: growth(upgrade),
      upgradeFloor: growth(r => floors(r).upgrade),
    },
  };
}

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
    table(
      ["figure", ...ns, "target"],
      [
        perSize("watcher peak RSS MB: fan-out / publish / upgrade", h.watcherRss, "≤ 256"),
        perSize("fan-out: ours ÷ floor", h.fanOutRatio, "≤ 2.5"),
        perSize("upgrade: ours ÷ floor", h.upgradeRatio, "≤ 2.5"),
        perSize("fan-out: git pushes per variant", h.pushesPerVariant, "≤ 0.1"),
        once(
          "fan-out growth 100 → 1000 (ours / floor)",
          `${cell(h.growth.fanOut)} / ${cell(h.growth.fanOutFloor)}`,
          "≤ 1.15",
        ),
        once(
          "upgrade growth 100 → 1000 (ours / floor)",
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
        "floor",
        "ours ÷ floor",
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
          floors(r).fanOut,
          h.fanOutRatio[r.n],
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
        "floor",
        "ours ÷ floor",
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
          floors(r).upgrade,
          h.upgradeRatio[r.n],
        ];
      }),
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
  const errors = sizes.filter(r => r.error);
  if (errors.length > 0)
    lines.push("", "## Errors", "", ...errors.map(r => `- N = ${r.n}: ${r.error}`));
  return `${lines.join("\n")}\n`;
}

const RED: [number, number, number] = [200, 60, 40];
const BLUE: [number, number, number] = [40, 90, 200];

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
  ].filter(x => x.points.length > 0);
  if (series.length === 0) return undefined;
  const { cores, cpuModel } = results.machine;
  return renderChart(series, {
    title: `Seconds to N rendered drafts, ${cores} cores (${cpuModel.split(" @")[0]})`,
    xLabel: "N variants",
    yLabel: "seconds",
  });
}

/** Writes results.json, results.md and time-vs-n.png into `dir`. */
export function writeResults(dir: string, results: BenchResults): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "results.json"),
    `${JSON.stringify({ ...results, headline: headline(results) }, null, 2)}\n`,
  );
  writeFileSync(join(dir, "results.md"), markdown(results));
  const png = chartOf(results);
  if (png) writeFileSync(join(dir, "time-vs-n.png"), png);
}
