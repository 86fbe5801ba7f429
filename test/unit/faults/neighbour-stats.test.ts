import { renderPackage } from "../../../lib/fn/render";
import { multiplyingPackage, seedCopies } from "../../../faults/multiplying-edit";
import {
  conditionsLine,
  limitCondition,
  p99Ratio,
  victimLatency,
} from "../../../faults/neighbour-stats";

describe("the victim's latency", () => {
  it("is the nearest-rank p50 and p99 of the times, whatever their order", () => {
    const latency = victimLatency([1400, 1200, 9000, 1300], 1);
    expect(latency).toEqual({ drafts: 4, p50Ms: 1300, p99Ms: 9000, timedOut: 1 });
    expect(p99Ratio(latency.p99Ms, victimLatency([1500, 1000], 0))).toBe(6);
  });

  it("splits off the create requests when they were timed", () => {
    expect(victimLatency([900, 1000], 0, [300, 100])).toMatchObject({
      createP50Ms: 100,
      createP99Ms: 300,
    });
  });
});

describe("a condition naming a limit", () => {
  const failed = (reason: string, message: string) => ({
    type: "Ready",
    status: "False",
    reason,
    message,
  });

  it("is a failure whose reason or message names a bound or its setting", () => {
    const timeout = failed("Timeout", "git fetch took longer than 300 s");
    expect(limitCondition([timeout])).toBe(timeout);
    const setting = failed(
      "TooLarge",
      "answered more than 9 bytes (PORCH_PEPR_GIT_MAX_RESPONSE_BYTES)",
    );
    expect(limitCondition([{ type: "Rendered", status: "True" }, setting])).toBe(setting);
    expect(
      limitCondition([failed("FunctionFailed", "output exceeds the 8 MiB limit")]),
    ).toBeDefined();
    const refused = {
      type: "Synced",
      status: "False",
      reason: "ContentTooLarge",
      message: "file is over the per-file limit (PORCH_PEPR_GIT_MAX_FILE_BYTES)",
    };
    expect(limitCondition([{ type: "Ready", status: "True" }, refused])).toBe(refused);
    const heap = {
      type: "Rendered",
      status: "False",
      reason: "FunctionMemoryLimit",
      message: "mutator 0 (apply-replacements): needed more than its maxMemory of 64 MiB",
    };
    expect(limitCondition([heap])).toBe(heap);
  });

  it("is not the API server's refusal of an oversized write, nor a success", () => {
    expect(limitCondition([failed("Failed", "etcdserver: request is too large")])).toBeUndefined();
    expect(
      limitCondition([failed("Failed", "Request entity too large: limit is 3145728")]),
    ).toBeUndefined();
    expect(limitCondition([{ type: "Ready", status: "True", reason: "Timeout" }])).toBeUndefined();
  });

  it("is recorded as one line per object, long messages cut", () => {
    const line = conditionsLine("PackageRevision", "r.p.v1", [failed("Timeout", "y".repeat(400))]);
    expect(line).toBe(`PackageRevision r.p.v1: Ready=False Timeout: ${"y".repeat(300)}…`);
    expect(conditionsLine("Repository", "huge", [])).toBe("Repository huge: no conditions");
  });
});

describe("the multiplying apply-replacements edit", () => {
  it("is about a kilobyte and doubles the ConfigMap at every target slot", async () => {
    const size = (n: number) =>
      Object.values(multiplyingPackage("fn", n)).reduce((a, f) => a + f.length, 0);
    expect(size(40)).toBeLessThan(1500);
    for (const targets of [3, 5]) {
      const out = await renderPackage(multiplyingPackage("fn", targets));
      expect(out.ok).toBe(true);
      expect(seedCopies(out.files["seed.yaml"])).toBe(2 ** targets);
    }
  });
});
