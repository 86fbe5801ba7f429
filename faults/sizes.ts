// How much of each fault a campaign injects: the full run the README links (`npm run faults`)
// and the short run `npm test` makes of every scenario (test/faults/).

export interface Sizes {
  watcherKills: { cycles: number; variants: number };
  gitServerKills: { cycles: number; variants: number; downSeconds: number };
  apiServerRestarts: { cycles: number; variants: number };
  fuzz: { cases: number };
  soak: { minutes: number };
  noisyNeighbour: NoisyNeighbourSizes;
}

/** The noisy-neighbour scenario (faults/scenarios/noisy-neighbour.ts). */
export interface NoisyNeighbourSizes {
  /** Drafts the victim creates one after another, idle and under each attack. */
  victimDrafts: number;
  /** The file on the tenant's tag, in MiB. */
  blobMiB: number;
  /** Target slots of the multiplying apply-replacements edit: the map doubles at each. */
  multiplyTargets: number;
  /** Drafts cloning from the trickling server. */
  trickleSources: number;
  /** Drafts the attacker creates at once. */
  burst: number;
  /** The most one attack may take to end (every attacking object with its condition). */
  attackSeconds: number;
  /** The most one victim draft may take to be Ready. */
  victimTimeoutSeconds: number;
  /**
   * The operator's git total timeout (PORCH_PEPR_GIT_TOTAL_TIMEOUT_MS), undefined for its
   * default: the short run sets a shorter one so the trickling sources hit it within the run.
   */
  gitTotalTimeoutSeconds?: number;
  /** Whether the victim's latency is judged (the full run) or only reported (the short run). */
  judgeLatency: boolean;
}

export const FULL: Sizes = {
  watcherKills: { cycles: 20, variants: 100 },
  gitServerKills: { cycles: 10, variants: 30, downSeconds: 120 },
  apiServerRestarts: { cycles: 2, variants: 100 },
  fuzz: { cases: 10_000 },
  soak: { minutes: 30 },
  noisyNeighbour: {
    victimDrafts: 10,
    blobMiB: 96,
    multiplyTargets: 40,
    trickleSources: 10,
    burst: 500,
    // the trickling sources end at the operator's default 5-minute git total timeout
    attackSeconds: 420,
    victimTimeoutSeconds: 120,
    judgeLatency: true,
  },
};

export const SHORT: Sizes = {
  watcherKills: { cycles: 3, variants: 10 },
  gitServerKills: { cycles: 2, variants: 10, downSeconds: 15 },
  apiServerRestarts: { cycles: 1, variants: 10 },
  fuzz: { cases: 300 },
  soak: { minutes: 1 },
  noisyNeighbour: {
    victimDrafts: 3,
    blobMiB: 16,
    multiplyTargets: 40,
    trickleSources: 10,
    burst: 40,
    // A built-in's worker loads the whole module first: on a loaded 2-core CI machine the
    // multiplying render had not ended 90 s into its attack.
    attackSeconds: 180,
    victimTimeoutSeconds: 60,
    gitTotalTimeoutSeconds: 30,
    judgeLatency: false,
  },
};
