import { renderPackage } from "../../../lib/fn/render";
import { DEFAULT_RENDER_LIMITS, renderLimitsFromEnv } from "../../../lib/fn/render-limits";
import { kptfile } from "./helpers";

const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n";
const labels = (n: number): string =>
  Array.from(
    { length: n },
    (_, i) => `    - image: set-labels\n      configMap:\n        step: "${i}"\n`,
  ).join("");

describe("render limits", () => {
  it("refuses a render whose Kptfiles list more functions together than the limit, before any runs", async () => {
    const limits = { ...DEFAULT_RENDER_LIMITS, maxFunctions: 3 };
    const files = {
      Kptfile: kptfile(`  mutators:\n${labels(2)}`),
      "a.yaml": cm,
      "sub/Kptfile": kptfile(`  mutators:\n${labels(2)}`, "sub"),
    };
    const out = await renderPackage(files, { limits });
    expect(out.ok).toBe(false);
    expect(out.error?.reason).toBe("TooManyFunctions");
    expect(out.error?.package).toBe("sub");
    expect(out.error?.message).toBe(
      'package "sub": its Kptfile pipelines list 4 functions together, more than 3 (PORCH_PEPR_PIPELINE_MAX_FUNCTIONS)',
    );
    expect(out.steps).toEqual([]);
    const within = await renderPackage({ ...files, "sub/Kptfile": kptfile("", "sub") }, { limits });
    expect(within.ok).toBe(true);
  });

  it("the default refuses 51 functions in one pipeline", async () => {
    const out = await renderPackage({ Kptfile: kptfile(`  validators:\n${labels(51)}`) });
    expect(out.error?.reason).toBe("TooManyFunctions");
  });

  it("ends a render that has run past its deadline before the next function starts", async () => {
    let clock = 0;
    // The clock moves 10 ms each time it is read: 30 ms per function (deadline, start, end).
    const now = (): number => (clock += 10);
    const out = await renderPackage(
      { Kptfile: kptfile(`  mutators:\n${labels(5)}`), "a.yaml": cm },
      { limits: { ...DEFAULT_RENDER_LIMITS, timeoutMs: 50 }, now },
    );
    expect(out.ok).toBe(false);
    expect(out.error?.reason).toBe("RenderTimeout");
    expect(out.error?.message).toBe(
      'package ".": mutator 2 (set-labels): the render has run for 70 ms, more than 50 ms (PORCH_PEPR_RENDER_TIMEOUT)',
    );
    expect(out.steps).toHaveLength(2);
  });

  it("reads its settings, warning of a value it cannot use", () => {
    expect(renderLimitsFromEnv({})).toEqual({ limits: DEFAULT_RENDER_LIMITS, warnings: [] });
    expect(
      renderLimitsFromEnv({
        PORCH_PEPR_PIPELINE_MAX_FUNCTIONS: "20",
        PORCH_PEPR_RENDER_TIMEOUT: "90s",
      }).limits,
    ).toEqual({ maxFunctions: 20, timeoutMs: 90_000 });
    const bad = renderLimitsFromEnv({
      PORCH_PEPR_PIPELINE_MAX_FUNCTIONS: "0",
      PORCH_PEPR_RENDER_TIMEOUT: "forever",
    });
    expect(bad.limits).toEqual(DEFAULT_RENDER_LIMITS);
    expect(bad.warnings).toHaveLength(2);
  });
});
