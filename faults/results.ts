// The campaign's results: the keys the README and issue name exactly, plus what a reader needs
// to judge them (the machine, the time each scenario took, what was violated).
import type { Machine } from "../bench/metrics";

/** What an audit of a variant fleet counts, from the API and from git (faults/audit.ts). */
export interface FleetCounts {
  /** PackageVariants in the namespace. */
  variants: number;
  /** Second PackageVariants of one target, second open drafts of one variant, second draft branches of one package. */
  duplicates: number;
  /** drafts/ or proposed/ branches in git that no PackageRevision stands for. */
  orphanBranches: number;
  /** Targets without a PackageVariant or without their open draft; drafts whose branch is gone. */
  lost: number;
  /** Open drafts not rendered at their current resources. */
  unrendered: number;
  /** Published revisions whose <package>/v<N> tag is missing in git, or tags moved since `tagsBefore`. */
  missingTags: number;
  /** Objects still deleting (a finalizer that was never removed). */
  stuckFinalizers: number;
}

export interface WatcherKillsResult extends FleetCounts {
  cycles: number;
  /** Kills during each phase (a phase done before its share carries the rest over). */
  killsByPhase: Record<string, number>;
  seconds: number;
}

export interface GitServerKillsResult {
  cycles: number;
  lostCommits: number;
  halfWritten: number;
  /** Seconds the server stayed down once, and whether every condition then said Unavailable. */
  downSeconds: number;
  unavailableReported: boolean;
  /** While it was down: the most Repositories, new drafts and PackageVariants saying so at once. */
  unavailableRepositories: number;
  unavailableRevisions: number;
  unavailableVariants: number;
  /** The fleet audit afterwards (faults/audit.ts): every variant's draft rendered, tags there. */
  variants: number;
  lost: number;
  unrendered: number;
  missingTags: number;
  seconds: number;
}

export interface ApiServerRestartsResult {
  cycles: number;
  unreconciled: number;
  /** From the last restart until every object reached its expected state. */
  recoverySeconds: number;
  /** The bound it was given. */
  boundSeconds: number;
  seconds: number;
}

export interface FuzzResult {
  cases: number;
  serverErrors: number;
  unnamedDenials: number;
  webhookRestarts: number;
  p99Ms: number;
  seconds: number;
  /** The PRNG seed: with a case's index it makes that case again (faults/fuzz/cases.ts). */
  seed: number;
  allowed: number;
  denied: number;
  maxMs: number;
  /** The slowest cases and the first broken ones, each with its seed and index. */
  slowest: string[];
  failures: string[];
}

export interface SoakResult {
  minutes: number;
  rssSlopeMbPerHour: number;
  fdSlopePerHour: number;
  leftoverErrors: number;
  seconds: number;
  /** The seed of the operations' PRNG, their rate, and how many of each were done. */
  seed: number;
  operationsPerMinute: number;
  operations: Record<string, number>;
  ticks: number;
  /** Ticks that started late because the operation before took longer than a tick. */
  overruns: number;
  /** Proposals the churn left under review, published after it stopped (before the checks). */
  proposalsPublishedAtEnd: number;
  samples: number;
  /** Samples before this are left out of the slopes. */
  warmupSeconds: number;
  watcherRestarts: number;
  rssStartMb: number;
  rssEndMb: number;
  rssMaxMb: number;
  fdsStart: number;
  fdsEnd: number;
  /** Queue depth over every controller: the highest sampled, and the sum of each one's peak. */
  peakQueueDepthSampled: number;
  peakQueueDepth: number;
  queueDepthAfterSettling: number;
  queueDepthBound: number;
  /** Samples whose depth exceeded the bound for the objects there were then. */
  queueOverBound: number;
  objectsStart: number;
  objectsEnd: number;
  /**
   * The watcher's live heap (after a full garbage collection, through its inspector) before the
   * churn and after it settled, and the growth per hour between them: what it retains, where RSS
   * also counts pages V8 reserved and has not returned.
   */
  liveHeapStartMb: number;
  liveHeapEndMb: number;
  liveHeapSlopeMbPerHour: number;
}

/** The attacks of the noisy-neighbour scenario, in the order it runs them. */
export const ATTACKS = [
  "hugeBlob",
  "multiplyingFunction",
  "tricklingClones",
  "draftBurst",
] as const;
export type AttackName = (typeof ATTACKS)[number];

/** The victim's time from creating a draft until it is Ready, in ms. */
export interface VictimLatency {
  drafts: number;
  p50Ms: number;
  p99Ms: number;
  /** Drafts not Ready within the bound (counted at the bound). */
  timedOut: number;
  /**
   * The create request alone (both admission webhooks and the API server's write): the part of
   * p50Ms / p99Ms spent before the watcher saw the draft.
   */
  createP50Ms?: number;
  createP99Ms?: number;
}

export interface AttackResult extends VictimLatency {
  /** The victim's p99 ÷ its idle p99. */
  p99Ratio: number;
  watcherPeakRssMb: number;
  restarts: number;
  /** Objects the attacker created. */
  attackingObjects: number;
  /** Those that ended with a condition naming the limit they hit (the burst hits none). */
  limitNamed: number;
  /** Burst drafts Ready when the attack ended. */
  ready?: number;
  /** Each attacking object's conditions at the end: "Kind name: Type=Status Reason: message". */
  conditions: string[];
  seconds: number;
}

export interface NoisyNeighbourResult {
  baseline: VictimLatency;
  /** The worst attack's victim p99 ÷ the idle baseline's. */
  victimP99Ratio: number;
  watcherPeakRssMb: number;
  /** 60% of the watcher's pod limit. */
  rssBoundMb: number;
  restarts: number;
  /** Attacking objects (of the huge blob, the function and the clones) naming no limit. */
  unnamedLimits: number;
  attacks: Partial<Record<AttackName, AttackResult>>;
  seconds: number;
}

export interface ScenarioResults {
  watcherKills: WatcherKillsResult;
  gitServerKills: GitServerKillsResult;
  apiServerRestarts: ApiServerRestartsResult;
  fuzz: FuzzResult;
  soak: SoakResult;
  noisyNeighbour: NoisyNeighbourResult;
}

export type ScenarioName = keyof ScenarioResults;

export interface CampaignResults extends Partial<ScenarioResults> {
  commit: string;
  date: string;
  machine: Machine;
  /** The short run of `npm test`, or the full campaign. */
  short: boolean;
  /** Per scenario, each invariant that did not hold (empty when all held). */
  violations: Partial<Record<ScenarioName, string[]>>;
  /** Bugs the campaign found, each fixed with a regression test in `npm test`. */
  foundAndFixed: string[];
  /**
   * Scenarios run again after the campaign (`--rerun`), each with the commit and date of that
   * run and why; their results replaced the campaign's.
   */
  reruns?: Partial<Record<ScenarioName, { commit: string; date: string; why: string }>>;
}
