import {
  boundedDownstreamTargets,
  TARGET_RENDER_STATUS_BOUNDS,
} from "../../../lib/package-variant";
import {
  addFunctionResult,
  errorResult,
  newResultList,
  noteDroppedResults,
} from "../../../lib/fn/results";

// A variant's status.downstreamTargets copied each target's whole render status: with many
// targets whose pipelines fail, the variant grew toward the API server's object limit.

/** The largest render status a render writes: its result cap filled, a 4 KiB error. */
function failingRender(target: string) {
  const list = newResultList();
  addFunctionResult(list, {
    image: "ghcr.io/kptdev/krm-functions-catalog/kubeval:v0.4",
    runtime: "pod",
    exitCode: 1,
    stderr: `${target}: `.padEnd(5000, "e"),
    results: Array.from({ length: 300 }, (_, i) => ({
      message: `${target} finding ${i} `.padEnd(400, "x"),
      severity: "error" as const,
      resourceRef: { apiVersion: "v1", kind: "ConfigMap", name: `cm-${i}` },
    })),
  });
  noteDroppedResults(list);
  return { error: `${target} failed: `.padEnd(4096, "!"), result: list };
}

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe("boundedDownstreamTargets", () => {
  it("keeps small render statuses whole", () => {
    const targets = [
      { name: "a", renderStatus: { result: { ...newResultList(), items: [{ exitCode: 0 }] } } },
      { name: "b" },
    ];
    expect(boundedDownstreamTargets(targets)).toEqual(targets);
  });

  it("cuts one target's render status to its bound, first results first, and counts the rest", () => {
    const whole = failingRender("t");
    expect(bytes(whole)).toBeGreaterThan(3 * TARGET_RENDER_STATUS_BOUNDS.perTargetBytes);
    const [target] = boundedDownstreamTargets([{ name: "t", renderStatus: whole }]);
    const kept = target.renderStatus!;
    expect(bytes(kept)).toBeLessThanOrEqual(TARGET_RENDER_STATUS_BOUNDS.perTargetBytes);
    expect(kept.error).toBe(`${whole.error.slice(0, 1024)}… (3072 characters dropped)`);
    expect(kept.result?.exitCode).toBe(1);
    const results = kept.result!.items![0].results!;
    expect(results[0]).toEqual(whole.result.items[0].results![0]);
    expect(results.at(-1)?.message).toMatch(
      /^render status cut: \d+ result items, 0 functions and 0 stderr texts were not copied and the error was shortened: a PackageVariant keeps at most 16 KiB of a target's render status; PackageRevisionResources "t" has it whole$/,
    );
    expect(whole.error).toHaveLength(4096); // the input is not changed
  });

  it("bounds all targets together; the ones past it keep their names, counted", () => {
    const names = Array.from({ length: 200 }, (_, i) => `target-${i}`);
    const targets = names.map(name => ({ name, renderStatus: failingRender(name) }));
    const out = boundedDownstreamTargets(targets);
    expect(bytes(targets)).toBeGreaterThan(10 * 1024 * 1024);
    expect(out.map(t => t.name)).toEqual(names);
    expect(bytes(out.map(t => t.renderStatus ?? null))).toBeLessThanOrEqual(
      TARGET_RENDER_STATUS_BOUNDS.totalBytes + 2048,
    );
    const copied = out.filter(t => t.renderStatus !== undefined);
    expect(copied.length).toBeGreaterThan(0);
    expect(out.slice(copied.length).every(t => t.renderStatus === undefined)).toBe(true);
    const note = copied.at(-1)!.renderStatus!.result!.items!.at(-1)!.results!.at(-1)!.message;
    expect(note).toBe(
      `the render status of ${200 - copied.length} more targets was not copied: a PackageVariant keeps at most 64 KiB of its targets' render statuses; each target's PackageRevisionResources has its own`,
    );
    expect(boundedDownstreamTargets(targets)).toEqual(out); // the same status every time
  });
});
