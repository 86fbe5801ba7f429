import { CelCostBudget, toCelObject } from "../../../lib/cel";
import {
  assignWave,
  decideRollout,
  desiredVariant,
  planSet,
  RolloutSpec,
  VariantProgress,
} from "../../../lib/package-variant-set";
import type { DesiredVariant, TargetContext } from "../../../lib/package-variant-set";
import { rolloutProblems } from "../../../lib/package-variant-set/rollout-validation";

const upstream = { repo: "b", package: "app", revision: 2 };
const repoObject = (name: string, labels: Record<string, string>) =>
  toCelObject({ metadata: { name, namespace: "ns", labels } });
const repositories = new Map([
  ["edge1", repoObject("edge1", { ring: "canary" })],
  ["edge2", repoObject("edge2", { ring: "early", region: "eu" })],
  ["edge3", repoObject("edge3", {})],
]);
const inputs = { upstream, upstreamObject: repoObject("up", {}), repositories };
const listContext = (repo: string): TargetContext => ({
  targetIndex: 0,
  targetKind: "repositories",
  repoDefault: repo,
  packageDefault: "app",
  target: { repo, package: "app" },
});
const spec = (repo: string) => ({ upstream, downstream: { repo, package: "app" } });

describe("assignWave", () => {
  const rollout: RolloutSpec = {
    waves: [
      { name: "canary", selector: { matchLabels: { ring: "canary" } } },
      {
        name: "eu",
        expression: "'region' in repository.labels && repository.labels['region'] == 'eu'",
      },
    ],
  };
  const wave = (repo: string, r = rollout) =>
    assignWave(listContext(repo), spec(repo), inputs, r, new CelCostBudget());

  it("takes the first wave whose selector (over the Repository's labels) and expression match", () => {
    expect([wave("edge1"), wave("edge2"), wave("edge3")]).toEqual([0, 1, 2]);
  });

  it("reads a selected object's own labels for a selector target", () => {
    const ctx: TargetContext = {
      ...listContext("edge3"),
      targetKind: "selector",
      target: repoObject("cluster-x", { ring: "canary" }),
    };
    expect(assignWave(ctx, spec("edge3"), inputs, rollout, new CelCostBudget())).toBe(0);
  });

  it("fails the target, naming the wave's expression, when it cannot be evaluated", () => {
    const r: RolloutSpec = {
      waves: [{ name: "x", expression: "repository.labels['none'] == 'a'" }],
    };
    expect(() => wave("edge3", r)).toThrow(/^spec\.rollout\.waves\[0\]\.expression: /);
  });
});

// Three waves of two: a1 a2 | b1 b2 | c1 c2 (the last one the implicit `rest`).
const rollout: RolloutSpec = {
  waves: [
    { name: "a", selector: { matchLabels: { ring: "a" } } },
    { name: "b", selector: { matchLabels: { ring: "b" } } },
  ],
};
const names = ["a1", "a2", "b1", "b2", "c1", "c2"];
const desired = (revision: number): DesiredVariant[] =>
  names.map(n => ({
    ...desiredVariant("s", {
      upstream: { ...upstream, revision },
      downstream: { repo: n, package: "app" },
    }),
    wave: "abc".indexOf(n[0]),
  }));
const existingAt = (revision: number, only = names) =>
  desired(revision)
    .filter(d => only.includes(d.spec.downstream?.repo ?? ""))
    .map(d => ({ metadata: { name: d.name }, spec: d.spec }));
const progressOf = (states: Record<string, Partial<VariantProgress>>) =>
  new Map(
    Object.entries(states).map(([repo, p]) => [
      `s-${repo}-app`,
      { ready: "True" as const, published: false, ...p },
    ]),
  );
const released = (plan: ReturnType<typeof decideRollout>["plan"]) => [
  ...plan.create.map(d => d.spec.downstream?.repo),
  ...plan.update.map(u => u.desired.spec.downstream?.repo),
];

describe("decideRollout", () => {
  it("releases only the first wave's creates of a new set", () => {
    const plan = planSet("s", desired(2), [], true);
    const { plan: out, status } = decideRollout(rollout, plan, new Map(), []);
    expect(released(out)).toEqual(["a1", "a2"]);
    expect(status).toMatchObject({ phase: "Progressing", currentWave: "a" });
    expect(status.waves?.map(w => [w.name, w.pending])).toEqual([
      ["a", 2],
      ["b", 2],
      ["rest", 2],
    ]);
  });

  it("starts a wave only when every variant of the waves before it reached the gate", () => {
    const plan = planSet("s", desired(2), existingAt(2, ["a1", "a2"]), true);
    const waiting = decideRollout(
      rollout,
      plan,
      progressOf({ a1: {}, a2: { ready: "Unknown" } }),
      [],
    );
    expect(released(waiting.plan)).toEqual([]);
    expect(waiting.status.waves?.[0]).toMatchObject({ done: 1, inFlight: 1 });
    const next = decideRollout(rollout, plan, progressOf({ a1: {}, a2: {} }), []);
    expect(released(next.plan)).toEqual(["b1", "b2"]);
    expect(next.status.currentWave).toBe("b");
  });

  it("with gate Published waits for the drafts to be published", () => {
    const plan = planSet("s", desired(2), existingAt(2, ["a1", "a2"]), true);
    const gated = { ...rollout, gate: "Published" as const };
    expect(released(decideRollout(gated, plan, progressOf({ a1: {}, a2: {} }), []).plan)).toEqual(
      [],
    );
    const published = progressOf({ a1: { published: true }, a2: { published: true } });
    expect(released(decideRollout(gated, plan, published, []).plan)).toEqual(["b1", "b2"]);
  });

  it("keeps at most maxInFlight variants of the wave short of the gate", () => {
    const wide: RolloutSpec = { maxInFlight: 1 };
    const plan = planSet("s", desired(2), existingAt(2, ["a1"]), true);
    expect(
      released(decideRollout(wide, plan, progressOf({ a1: { ready: "Unknown" } }), []).plan),
    ).toEqual([]);
    expect(released(decideRollout(wide, plan, progressOf({ a1: {} }), []).plan)).toEqual(["a2"]);
  });

  it("releases an upgrade wave by wave: later waves keep their current spec", () => {
    const plan = planSet("s", desired(3), existingAt(2), true);
    const all = progressOf(Object.fromEntries(names.map(n => [n, {}])));
    const { plan: out, status } = decideRollout(rollout, plan, all, []);
    expect(released(out)).toEqual(["a1", "a2"]);
    expect(out.update.map(u => u.desired.spec.upstream?.revision)).toEqual([3, 3]);
    expect(status.waves?.map(w => w.pending)).toEqual([2, 2, 2]);
  });

  it("halts on a Ready=False variant of the current wave, naming it, and resumes once it recovers", () => {
    const plan = planSet("s", desired(2), existingAt(2, ["a1", "a2"]), true);
    const failing = progressOf({ a1: {}, a2: { ready: "False", message: "render failed" } });
    const halted = decideRollout(rollout, plan, failing, []);
    expect(released(halted.plan)).toEqual([]);
    expect(halted.status).toMatchObject({
      phase: "Halted",
      currentWave: "a",
      halted: { packageVariant: "s-a2-app", reason: "NotReady", message: "render failed" },
    });
    expect(released(decideRollout(rollout, plan, progressOf({ a1: {}, a2: {} }), []).plan)).toEqual(
      ["b1", "b2"],
    );
  });

  it("halts on a target whose template failed once its wave is current", () => {
    const plan = planSet("s", desired(2), existingAt(2, ["a1", "a2"]), true);
    const all = progressOf({ a1: {}, a2: {} });
    const failure = { repository: "b9", package: "app", message: "spec.targets[0]: boom" };
    const early = decideRollout(rollout, planSet("s", desired(2), [], true), all, [
      { ...failure, wave: 1 },
    ]);
    expect(released(early.plan)).toEqual(["a1", "a2"]);
    const halted = decideRollout(rollout, plan, all, [{ ...failure, wave: 1 }]);
    expect(released(halted.plan)).toEqual([]);
    expect(halted.status).toMatchObject({
      phase: "Halted",
      currentWave: "b",
      halted: { packageVariant: "", repository: "b9", reason: "RenderFailed" },
    });
    expect(halted.status.waves?.[1]).toMatchObject({ total: 3, failed: 1, pending: 2 });
  });

  it("keeps at most 1024 characters of a failure's message", () => {
    const plan = planSet("s", desired(2), existingAt(2, ["a1", "a2"]), true);
    const long = progressOf({ a1: {}, a2: { ready: "False", message: "x".repeat(40_000) } });
    expect(decideRollout(rollout, plan, long, []).status.halted?.message).toHaveLength(1025);
  });

  it("halts on recorded conflicts only when asked to", () => {
    const plan = planSet("s", desired(2), existingAt(2, ["a1", "a2"]), true);
    const conflicted = progressOf({ a1: {}, a2: { conflicts: "1 conflict(s)" } });
    expect(released(decideRollout(rollout, plan, conflicted, []).plan)).toEqual(["b1", "b2"]);
    const strict = { ...rollout, haltOnConflicts: true };
    expect(decideRollout(strict, plan, conflicted, []).status.halted).toMatchObject({
      packageVariant: "s-a2-app",
      reason: "Conflicts",
    });
  });

  it("releases nothing while paused, and passes deletions through", () => {
    const existing = [
      ...existingAt(2, ["a1"]),
      { metadata: { name: "s-gone-app" }, spec: spec("gone") },
    ];
    const plan = planSet("s", desired(2), existing, true);
    const { plan: out, status } = decideRollout(
      { ...rollout, paused: true },
      plan,
      progressOf({ a1: {} }),
      [],
    );
    expect(released(out)).toEqual([]);
    expect(out.delete.map(e => e.metadata?.name)).toEqual(["s-gone-app"]);
    expect(status.phase).toBe("Paused");
  });

  it("is Complete when every wave reached the gate", () => {
    const plan = planSet("s", desired(2), existingAt(2), true);
    const all = progressOf(Object.fromEntries(names.map(n => [n, {}])));
    expect(decideRollout(rollout, plan, all, []).status).toMatchObject({
      phase: "Complete",
      currentWave: "",
    });
  });
});

describe("rolloutProblems", () => {
  it("names every problem of waves, maxInFlight and maxDeletions", () => {
    const problems = rolloutProblems({
      targets: [{ repositories: [{ name: "r" }] }],
      rollout: {
        waves: [
          { name: "a", selector: { matchExpressions: [{ key: "ring", operator: "In" }] } },
          { name: "a", expression: "target.repo" },
          { name: "b", expression: "target.repo ==" },
        ],
        maxInFlight: 0,
      },
      deletionGuard: { maxDeletions: "150%" },
    });
    expect(problems).toEqual([
      "spec.rollout.waves[0].selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      'spec.rollout.waves[1].name: Invalid value: "a": duplicate wave name',
      "spec.rollout.waves[1].expression: must evaluate to a bool, but evaluates to string",
      expect.stringMatching(/^spec\.rollout\.waves\[2\]\.expression: /),
      "spec.rollout.maxInFlight: Invalid value: 0: must be at least 1",
      'spec.deletionGuard.maxDeletions: Invalid value: "150%": a percentage must be between 0% and 100%',
    ]);
  });

  it("accepts a valid rollout and integer or percentage limits", () => {
    const spec = { targets: [{ repositorySelector: {} }] };
    expect(
      rolloutProblems({
        ...spec,
        rollout: {
          waves: [{ name: "a", expression: "target.labels['ring'] == 'a'" }],
          maxInFlight: 2,
        },
        deletionGuard: { maxDeletions: 3 },
      }),
    ).toEqual([]);
    expect(rolloutProblems({ ...spec, deletionGuard: { maxDeletions: "0%" } })).toEqual([]);
    expect(rolloutProblems({ ...spec, deletionGuard: { maxDeletions: "3" } })).toHaveLength(1);
  });
});
