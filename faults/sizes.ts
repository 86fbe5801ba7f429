// How much of each fault a campaign injects: the full run the README links (`npm run faults`)
// and the short run `npm test` makes of every scenario (test/faults/).

export interface Sizes {
  watcherKills: { cycles: number; variants: number };
  gitServerKills: { cycles: number; variants: number; downSeconds: number };
  apiServerRestarts: { cycles: number; variants: number };
  fuzz: { cases: number };
  soak: { minutes: number };
}

export const FULL: Sizes = {
  watcherKills: { cycles: 20, variants: 100 },
  gitServerKills: { cycles: 10, variants: 30, downSeconds: 120 },
  apiServerRestarts: { cycles: 2, variants: 100 },
  fuzz: { cases: 10_000 },
  soak: { minutes: 30 },
};

export const SHORT: Sizes = {
  watcherKills: { cycles: 3, variants: 10 },
  gitServerKills: { cycles: 2, variants: 10, downSeconds: 15 },
  apiServerRestarts: { cycles: 1, variants: 10 },
  fuzz: { cases: 300 },
  soak: { minutes: 1 },
};
