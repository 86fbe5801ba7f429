import { createRepository, publishRevision } from "../support/fixtures";
import {
  createNamespace,
  deleteNamespace,
  getJson,
  kubectl,
  kubectlOk,
  listJson,
  mergePatch,
} from "../support/kubectl";
import { eventually } from "../support/wait";

// Rollout waves and the deletion guard of a PackageVariantSet, against the real API server, the
// PackageVariant controller and git (docs/package-variant-sets.md, “Rollout waves”, “Deletion
// guard”). Every check reads a status the controller wrote after deciding, so none depends on
// how fast it runs.
interface PV {
  metadata: { name: string; deletionTimestamp?: string };
  spec: { downstream: { repo: string } };
}
interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
}
interface PVS {
  metadata: { uid: string; generation: number };
  status?: {
    observedGeneration?: number;
    conditions?: Condition[];
    counts?: { ready?: number };
    rollout?: {
      phase?: string;
      currentWave?: string;
      halted?: { repository?: string; reason?: string; message?: string };
      waves?: { name: string; total: number; done: number; failed: number; pending: number }[];
    };
    deletionGuard?: { generation: number; count: number; of: number; packageVariants: string[] };
  };
}

let ns: string;
const setOf = (name: string) => getJson<PVS>("packagevariantset", name, ns);
/** The downstream repositories of the set's PackageVariants not being deleted. */
const liveRepos = (set: string) => {
  const uid = setOf(set)?.metadata.uid;
  return listJson<PV>("packagevariants", ns, `config.porch.kpt.dev/packagevariantset=${uid}`)
    .filter(pv => !pv.metadata.deletionTimestamp)
    .map(pv => pv.spec.downstream.repo)
    .sort();
};
/** Applies a set of app v1 from the catalog, as a user does. */
const applySet = (name: string, spec: object) =>
  kubectl(
    ["apply", "-n", ns, "-f", "-"],
    JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha2",
      kind: "PackageVariantSet",
      metadata: { name },
      spec: { upstream: { repo: "catalog", package: "app", revision: 1 }, ...spec },
    }),
  );
/** The set's status once the controller acted on its current generation and `ok` holds. */
const settled = (set: string, what: string, ok: (s: NonNullable<PVS["status"]>) => boolean) =>
  eventually(
    what,
    () => {
      const s = setOf(set);
      return s?.status?.observedGeneration === s?.metadata.generation && ok(s!.status!)
        ? s!
        : undefined;
    },
    90_000,
  );

beforeAll(async () => {
  ns = createNamespace("e2e-rollout");
  const repos: [string, Record<string, string>][] = [
    ["one-a", { ring: "one", team: "x", env: "prod" }],
    ["two-a", { ring: "two", team: "x", env: "prod" }],
    ["two-b", { ring: "two", env: "prod" }], // no team: its template fails
    ["rest-a", { team: "x", env: "prod" }],
    ["rest-b", { team: "x", env: "prod" }],
  ];
  await Promise.all(repos.map(([name, labels]) => createRepository(ns, name, labels)));
  await createRepository(ns, "catalog");
  await publishRevision(ns, "catalog", "app", 1);
});
afterAll(() => deleteNamespace(ns));

it("rolls out in three waves, halts on the failing target of the second and resumes once it is fixed", async () => {
  const applied = applySet("waves", {
    targets: [
      {
        repositories: ["one-a", "two-a", "two-b", "rest-a"].map(name => ({ name })),
        template: { labelExprs: [{ key: "team", valueExpr: "repository.labels['team']" }] },
      },
    ],
    rollout: {
      waves: [
        { name: "one", selector: { matchLabels: { ring: "one" } } },
        {
          name: "two",
          expression: "'ring' in repository.labels && repository.labels['ring'] == 'two'",
        },
      ],
    },
  });
  expect(applied.stderr).toBe("");

  // Wave one reaches Ready; wave two halts on two-b, whose template cannot be rendered. The
  // status that first counts one-a ready was computed from the same PackageVariants as the
  // rollout it shows.
  const halted = await settled("waves", "one-a ready", s => (s.counts?.ready ?? 0) >= 1);
  expect(halted.status?.rollout).toMatchObject({
    currentWave: "two",
    halted: { repository: "two-b", reason: "RenderFailed" },
  });
  expect(halted.status?.rollout?.halted?.message).toContain("team");
  expect(halted.status?.rollout?.waves?.map(w => [w.name, w.total, w.done, w.failed])).toEqual([
    ["one", 1, 1, 0],
    ["two", 2, 0, 1],
    ["rest", 1, 0, 0],
  ]);
  expect(halted.status?.conditions?.find(c => c.type === "RolloutHalted")).toMatchObject({
    status: "True",
    reason: "RenderFailed",
  });
  // Nothing of wave two or later was released: two-a waits although it could be rendered.
  expect(liveRepos("waves")).toEqual(["one-a"]);

  // The fix: two-b gets its label; the rollout resumes and completes through the last wave.
  kubectlOk(["label", "repository", "two-b", "-n", ns, "team=x"]);
  const done = await settled("waves", "rollout complete", s => s.rollout?.phase === "Complete");
  expect(done.status?.rollout?.waves?.map(w => [w.name, w.done])).toEqual([
    ["one", 1],
    ["two", 2],
    ["rest", 1],
  ]);
  expect(liveRepos("waves")).toEqual(["one-a", "rest-a", "two-a", "two-b"]);
}, 300_000);

it("holds a selector change that would delete 80% of the variants until it is acknowledged", async () => {
  const applied = applySet("guarded", {
    targets: [{ repositorySelector: { matchLabels: { env: "prod" } } }],
  });
  expect(applied.stderr).toBe("");
  await eventually(
    "five variants",
    () => (liveRepos("guarded").length === 5 ? true : undefined),
    90_000,
  );

  // Narrow the selector to one repository: four of five would go, over the default 25%.
  mergePatch("packagevariantset", "guarded", ns, {
    spec: { targets: [{ repositorySelector: { matchLabels: { env: "prod", ring: "one" } } }] },
  });
  // The status of the new generation is written after that reconcile's deletions.
  const held = await settled("guarded", "the narrowed selector reconciled", () => true);
  const generation = held.metadata.generation;
  expect(held.status?.deletionGuard).toMatchObject({ generation, count: 4, of: 5 });
  const condition = held.status?.conditions?.find(c => c.type === "DeletionsHeld");
  expect(condition).toMatchObject({ status: "True", reason: "TooManyDeletions" });
  expect(condition?.message).toContain(`the set's spec changed`);
  expect(condition?.message).toContain(`acknowledgedGeneration is set to ${generation}`);
  expect(liveRepos("guarded")).toHaveLength(5);

  mergePatch("packagevariantset", "guarded", ns, {
    spec: { deletionGuard: { acknowledgedGeneration: generation } },
  });
  await eventually(
    "four variants deleted",
    () => (JSON.stringify(liveRepos("guarded")) === JSON.stringify(["one-a"]) ? true : undefined),
    90_000,
  );
  const after = await settled("guarded", "guard released", s => s.deletionGuard === undefined);
  expect(after.status?.conditions?.find(c => c.type === "DeletionsHeld")?.status).toBe("False");
}, 300_000);

it("denies invalid waves and limits at admission, naming every problem", () => {
  const { code, stderr } = applySet("bad", {
    targets: [{ repositories: [{ name: "one-a" }] }],
    rollout: {
      waves: [{ name: "a" }, { name: "a", expression: "target.repo" }],
      maxInFlight: 0,
    },
    deletionGuard: { maxDeletions: "120%" },
  });
  expect(code).not.toBe(0);
  for (const problem of [
    'spec.rollout.waves[1].name: Invalid value: "a": duplicate wave name',
    "spec.rollout.waves[1].expression: must evaluate to a bool, but evaluates to string",
    "spec.rollout.maxInFlight: Invalid value: 0: must be at least 1",
    'spec.deletionGuard.maxDeletions: Invalid value: "120%": a percentage must be between 0% and 100%',
  ])
    expect(stderr).toContain(problem);
});
