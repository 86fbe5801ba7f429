// What one measurement window costs: API requests (the API server's apiserver_request_total),
// reconciles (the operator's pepr_reconciles_*_total), and CPU seconds and peak RSS of each
// process (from /proc), plus the machine's own description.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { get } from "node:https";
import type { Api } from "./kube";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format → samples (comments and blank lines skipped). */
export function parseProm(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split("\n")) {
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)) labels[l[1]] = l[2];
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return samples;
}

const COUNTED_GROUPS = new Set(["porch.kpt.dev", "config.porch.kpt.dev"]);

/** Requests (watches apart) to the porch groups and to Events, "VERB resource" → count. */
export async function apiRequests(api: Api): Promise<Record<string, number>> {
  const text = (await api.send("GET", "/metrics")).body;
  const counts: Record<string, number> = {};
  for (const s of parseProm(text)) {
    if (s.name !== "apiserver_request_total" || s.labels.verb === "WATCH") continue;
    if (s.labels.dry_run) continue; // the admission scenario's dry runs are counted apart
    const { group, resource, subresource, verb } = s.labels;
    if (!COUNTED_GROUPS.has(group) && resource !== "events") continue;
    const key = `${verb} ${resource}${subresource ? `/${subresource}` : ""}`;
    counts[key] = (counts[key] ?? 0) + s.value;
  }
  return counts;
}

/** Reconciles run so far by controller, from the watcher's /metrics text. */
export function reconcileCounts(metrics: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of parseProm(metrics)) {
    const m = /^pepr_reconciles_(\w+)_total$/.exec(s.name);
    if (m) counts[m[1]] = s.value;
  }
  return counts;
}

/** The body of an HTTPS GET whose server `ca` signed (the embedded module's /metrics). */
export function httpsText(url: string, ca: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    get(url, { ca }, res => {
      let body = "";
      res.on("data", c => (body += c));
      res.on("end", () =>
        res.statusCode === 200 ? resolve(body) : reject(new Error(`GET ${url}: ${res.statusCode}`)),
      );
    }).on("error", reject);
  });
}

export const diff = (after: Record<string, number>, before: Record<string, number>) =>
  Object.fromEntries(
    Object.entries(after)
      .map(([k, v]) => [k, v - (before[k] ?? 0)] as const)
      .filter(([, v]) => v !== 0),
  );

export const sum = (counts: Record<string, number>) =>
  Object.values(counts).reduce((a, b) => a + b, 0);

const TICKS = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

interface CpuTimes {
  /** utime + stime, seconds. */
  self: number;
  /** cutime + cstime: children it waited for (git CLI processes), seconds. */
  children: number;
}

function cpuOf(pid: number): CpuTimes | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after "(comm)": state is field 3, utime 14 .. cstime 17 (1-based).
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const n = (i: number) => Number(f[i - 3]);
    return { self: (n(14) + n(15)) / TICKS, children: (n(16) + n(17)) / TICKS };
  } catch {
    return undefined;
  }
}

export function statusKb(pid: number, field: "VmRSS" | "VmHWM"): number {
  try {
    const m = new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(
      readFileSync(`/proc/${pid}/status`, "utf8"),
    );
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

export function openFds(pid: number): number {
  try {
    return readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return 0;
  }
}

/** Busy and total jiffies of the whole machine (all CPUs). */
function machineJiffies(): { busy: number; total: number } {
  const f = readFileSync("/proc/stat", "utf8").split("\n")[0].split(/\s+/).slice(1).map(Number);
  const idle = f[3] + f[4];
  const total = f.reduce((a, b) => a + b, 0);
  return { busy: total - idle, total };
}

export interface ProcessUsage {
  cpuSeconds: number;
  childCpuSeconds: number;
  peakRssMb: number;
  /** Most file descriptors open at once (sockets included), from 250 ms samples. */
  peakFds: number;
  /** The process was replaced (crashed and restarted) during the window. */
  restarted?: boolean;
}

export interface Usage {
  processes: Record<string, ProcessUsage>;
  /** Share of all CPUs busy during the window (everything on the machine), 0..1. */
  machineBusy: number;
  /** CPU seconds used by processes other than the measured ones (other work on the machine). */
  otherCpuSeconds: number;
}

/**
 * Samples the named processes from start() to stop(): CPU from /proc/<pid>/stat, peak RSS as
 * the larger of 250 ms samples and VmHWM (reset at start through clear_refs).
 */
export class ProcessMeter {
  #start = new Map<string, { pid: number; cpu: CpuTimes }>();
  #peak = new Map<string, number>();
  #fds = new Map<string, number>();
  #timer: NodeJS.Timeout | undefined;
  #machine = machineJiffies();

  constructor(private readonly pids: () => Record<string, number | undefined>) {}

  start(): void {
    this.#machine = machineJiffies();
    this.#start.clear();
    this.#peak.clear();
    this.#fds.clear();
    for (const [name, pid] of Object.entries(this.pids())) {
      const cpu = pid && cpuOf(pid);
      if (!pid || !cpu) continue;
      try {
        writeFileSync(`/proc/${pid}/clear_refs`, "5"); // resets VmHWM to the current RSS
      } catch {
        // not permitted: the 250 ms samples still bound the peak from below
      }
      this.#start.set(name, { pid, cpu });
    }
    this.#timer = setInterval(() => this.#sample(), 250);
  }

  #sample(): void {
    for (const [name, pid] of Object.entries(this.pids())) {
      if (!pid) continue;
      this.#peak.set(name, Math.max(this.#peak.get(name) ?? 0, statusKb(pid, "VmRSS")));
      this.#fds.set(name, Math.max(this.#fds.get(name) ?? 0, openFds(pid)));
    }
  }

  /** CPU seconds the named process has used so far (its own, not its children's). */
  cpuSecondsOf(name: string): number | undefined {
    const pid = this.pids()[name];
    return pid ? cpuOf(pid)?.self : undefined;
  }

  stop(): Usage {
    clearInterval(this.#timer);
    this.#sample();
    const processes: Record<string, ProcessUsage> = {};
    const pids = this.pids();
    for (const [name, start] of this.#start) {
      const pid = pids[name];
      const end = pid === start.pid ? cpuOf(pid) : undefined;
      const hwm = pid ? statusKb(pid, "VmHWM") : 0;
      processes[name] = {
        cpuSeconds: round(end ? end.self - start.cpu.self : NaN, 2),
        childCpuSeconds: round(end ? end.children - start.cpu.children : NaN, 2),
        peakRssMb: round(Math.max(hwm, this.#peak.get(name) ?? 0) / 1024, 1),
        peakFds: this.#fds.get(name) ?? 0,
        ...(pid !== start.pid && { restarted: true }),
      };
    }
    const m = machineJiffies();
    const machineBusy = round((m.busy - this.#machine.busy) / (m.total - this.#machine.total), 3);
    const measured = Object.values(processes).reduce(
      (a, p) => a + (p.cpuSeconds || 0) + (p.childCpuSeconds || 0),
      0,
    );
    const otherCpuSeconds = round((m.busy - this.#machine.busy) / TICKS - measured, 1);
    return { processes, machineBusy, otherCpuSeconds };
  }
}

export const round = (x: number, digits: number) => Number(x.toFixed(digits));

/** The pid of the process whose command line contains every one of `parts` (first found). */
export function findPid(parts: string[]): number | undefined {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (parts.every(p => cmd.includes(p))) return Number(entry);
    } catch {
      // exited meanwhile
    }
  }
  return undefined;
}

export function readPid(file: string): number | undefined {
  try {
    return Number(readFileSync(file, "utf8").trim()) || undefined;
  } catch {
    return undefined;
  }
}

export interface Machine {
  cpuModel: string;
  cores: number;
  memoryGb: number;
  node: string;
  git: string;
  loadAverage: number[];
}

export function machine(): Machine {
  const cpuinfo = readFileSync("/proc/cpuinfo", "utf8");
  const mem = /^MemTotal:\s+(\d+) kB/m.exec(readFileSync("/proc/meminfo", "utf8"));
  const git = (args: string[]) => execFileSync("git", args, { encoding: "utf8" }).trim();
  const dirty = git(["status", "--porcelain"]) !== "";
  return {
    cpuModel: /^model name\s*:\s*(.*)$/m.exec(cpuinfo)?.[1] ?? "unknown",
    cores: (cpuinfo.match(/^processor\s*:/gm) ?? []).length,
    memoryGb: round(Number(mem?.[1] ?? 0) / 1024 / 1024, 1),
    node: process.version,
    git: `${git(["rev-parse", "--short", "HEAD"])}${dirty ? " (with uncommitted changes)" : ""}`,
    loadAverage: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).map(Number),
  };
}
