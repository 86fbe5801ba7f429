import type { PackageVariant, PackageVariantSet } from "../../../crd-types";
import {
  buildStatus,
  emptyOutcome,
  LISTED_TARGETS_LIMIT,
  newlyEmptyTargets,
  type DesiredVariant,
} from "../../../lib/package-variant-set";

const NOW = new Date("2025-01-15T10:00:00Z");
const set = { metadata: { name: "s", namespace: "default", generation: 1 } } as PackageVariantSet;
const desired = (name: string): DesiredVariant => ({
  identifier: name,
  name,
  spec: { downstream: { repo: "r", package: name } },
});
const variant = (
  name: string,
  generation: number,
  ready: { status: "True" | "False"; reason: string; message: string; observedGeneration: number },
): PackageVariant =>
  ({
    metadata: { name, generation },
    status: { conditions: [{ type: "Ready", lastTransitionTime: "", ...ready }] },
  }) as PackageVariant;

function statusOf(variants: PackageVariant[]) {
  const outcome = emptyOutcome();
  outcome.desired = variants.map(v => desired(v.metadata?.name ?? ""));
  outcome.variants = new Map(variants.map(v => [v.metadata?.name ?? "", v]));
  return buildStatus(set, outcome, NOW);
}

describe("PackageVariantSet status: a target is ready only when its variant truly is", () => {
  it("counts a Ready=True of the current generation, and lists a failure with its message", () => {
    const status = statusOf([
      variant("ok", 2, { status: "True", reason: "NoErrors", message: "", observedGeneration: 2 }),
      variant("bad", 1, {
        status: "False",
        reason: "Error",
        message: 'waiting for PackageRevision "x" to be created from its source: clone: boom',
        observedGeneration: 1,
      }),
    ]);
    expect(status.targets?.map(t => [t.packageVariant, t.ready, t.message])).toEqual([
      [
        "bad",
        "False",
        'waiting for PackageRevision "x" to be created from its source: clone: boom',
      ],
    ]);
    expect(status.counts).toEqual({ desired: 2, ready: 1, failed: 1 });
  });

  it("does not count a Ready=True written for an older spec", () => {
    const status = statusOf([
      variant("stale", 3, {
        status: "True",
        reason: "NoErrors",
        message: "",
        observedGeneration: 2,
      }),
    ]);
    expect(status.targets?.[0]).toMatchObject({
      ready: "Unknown",
      message: 'waiting for PackageVariant "stale" to be reconciled at generation 3',
    });
    expect(status.counts).toEqual({ desired: 1, ready: 0, failed: 0 });
  });

  it("reports a draft waiting for its content as Unknown, neither ready nor failed", () => {
    const status = statusOf([
      variant("new", 1, {
        status: "False",
        reason: "Pending",
        message: "created x; waiting",
        observedGeneration: 1,
      }),
    ]);
    expect(status.targets?.[0]).toMatchObject({ ready: "Unknown", message: "created x; waiting" });
    expect(status.counts).toEqual({ desired: 1, ready: 0, failed: 0 });
  });
});

describe("PackageVariantSet status: a target that selects nothing is visible", () => {
  const message = "spec.targets[0] selects nothing: no Repository matches env=prod";

  it("gets a per-target message that counts as neither desired, ready nor failed", () => {
    const outcome = emptyOutcome();
    outcome.emptyTargets = [message];
    const status = buildStatus(set, outcome, NOW);
    expect(status.targets).toEqual([{ packageVariant: "", message }]);
    expect(status.counts).toEqual({ desired: 0, ready: 0, failed: 0 });
  });

  it("is announced by an event once, when it first appears", () => {
    const outcome = emptyOutcome();
    outcome.emptyTargets = [message];
    expect(newlyEmptyTargets(set, outcome)).toEqual([message]);
    const reported = { ...set, status: buildStatus(set, outcome, NOW) } as PackageVariantSet;
    expect(newlyEmptyTargets(reported, outcome)).toEqual([]);
  });
});

describe("PackageVariantSet status: its size does not grow with the set", () => {
  const ready = { status: "True", reason: "NoErrors", message: "", observedGeneration: 1 } as const;
  const pending = { ...ready, status: "False", reason: "Error", message: "clone: boom" } as const;

  it("lists no target of a set whose variants are all ready", () => {
    const status = statusOf(Array.from({ length: 3000 }, (_, i) => variant(`v${i}`, 1, ready)));
    expect(status.targets).toEqual([]);
    expect(status.counts).toEqual({ desired: 3000, ready: 3000, failed: 0 });
  });

  it("lists at most LISTED_TARGETS_LIMIT targets, empty selections first, and counts them all", () => {
    const outcome = emptyOutcome();
    const variants = Array.from({ length: 3000 }, (_, i) => variant(`v${i}`, 1, pending));
    outcome.desired = variants.map(v => desired(v.metadata?.name ?? ""));
    outcome.variants = new Map(variants.map(v => [v.metadata?.name ?? "", v]));
    outcome.emptyTargets = ["spec.targets[1] selects nothing: no Repository matches env=prod"];
    const status = buildStatus(set, outcome, NOW);
    expect(status.targets).toHaveLength(LISTED_TARGETS_LIMIT);
    expect(status.targets?.[0]).toEqual({ packageVariant: "", message: outcome.emptyTargets[0] });
    expect(status.targets?.[1]).toMatchObject({ packageVariant: "v0", ready: "False" });
    expect(status.counts).toEqual({ desired: 3000, ready: 0, failed: 3000 });
  });
});

describe("PackageVariantSet status: Ready is False while changes are held back", () => {
  const readyOf = (fill: (o: ReturnType<typeof emptyOutcome>) => void) => {
    const outcome = emptyOutcome();
    fill(outcome);
    const ready = buildStatus(set, outcome, NOW).conditions?.find(c => c.type === "Ready");
    return [ready?.status, ready?.reason];
  };

  it("is True with nothing held", () => {
    expect(readyOf(() => {})).toEqual(["True", "Reconciled"]);
  });

  it("names a plan waiting for approval", () => {
    const decision = { apply: false, reason: "AwaitingApproval", message: "approve it" } as const;
    expect(
      readyOf(o => (o.plan = { decision, status: { id: "0123456789abcdef" } as never })),
    ).toEqual(["False", "AwaitingApproval"]);
  });

  it("names a rollout still in progress, and one halted", () => {
    expect(readyOf(o => (o.rollout = { phase: "Progressing", currentWave: "canary" }))).toEqual([
      "False",
      "RolloutProgressing",
    ]);
    expect(
      readyOf(
        o =>
          (o.rollout = {
            phase: "Halted",
            currentWave: "canary",
            halted: { packageVariant: "pv", message: "render failed" },
          }),
      ),
    ).toEqual(["False", "RolloutHalted"]);
    expect(readyOf(o => (o.rollout = { phase: "Complete", currentWave: "rest" }))).toEqual([
      "True",
      "Reconciled",
    ]);
  });

  it("names deletions held by the guard", () => {
    expect(
      readyOf(o => (o.deletionsHeld = { count: 4, of: 5, limit: 1, generation: 2, reason: "x" })),
    ).toEqual(["False", "TooManyDeletions"]);
  });
});
