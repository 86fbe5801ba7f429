import {
  addFunctionResult,
  newResultList,
  noteDroppedResults,
  RESULT_BOUNDS,
  type FunctionResult,
} from "../../../lib/fn/results";
import { createFunctionRuntime } from "../../../lib/fn/runtime";
import { renderMutator } from "./helpers";

describe("the results a render keeps", () => {
  it("a search-replace over 2,000 fields keeps 100 result items and says how many it dropped", async () => {
    const data = Array.from({ length: 2000 }, (_, i) => `  k${i}: old\n`).join("");
    const out = await renderMutator(
      "image: gcr.io/kpt-fn/search-replace:v0.2.0\nconfigMap:\n  by-value: old\n  put-value: new",
      { "cm.yaml": `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n${data}` },
    );
    expect(out.ok).toBe(true);
    expect(out.files["cm.yaml"]).not.toContain(": old");
    const items = out.results.items[0]?.results ?? [];
    expect(items).toHaveLength(RESULT_BOUNDS.maxItems + 1);
    expect(items[RESULT_BOUNDS.maxItems]).toEqual({
      severity: "info",
      message:
        "1900 more result items were not kept and 0 texts were cut: a render keeps at most 100 result items, 64 KiB of them and of stderr, 1024 characters per text",
    });
    expect(JSON.stringify(out.results).length).toBeLessThan(64 * 1024);
  });

  it("cuts long texts and stderr, and keeps no more than maxBytes of items across functions", () => {
    const list = newResultList();
    const long = "x".repeat(50_000);
    const run = (): FunctionResult => ({
      image: "fn",
      exitCode: 0,
      stderr: `${long}\nthe last line`,
      results: Array.from({ length: 30 }, () => ({
        message: long,
        tags: { [long]: long },
        field: { path: long },
      })),
    });
    for (let i = 0; i < 20; i++) addFunctionResult(list, run());
    noteDroppedResults(list);
    expect(list.items).toHaveLength(20);
    expect(list.items[0].stderr).toMatch(/^\(48990 characters dropped\) …x+\nthe last line$/);
    expect(list.items[0].results?.[0].message).toBe(
      `${"x".repeat(1024)}… (48976 characters dropped)`,
    );
    expect(JSON.stringify(list).length).toBeLessThan(RESULT_BOUNDS.maxBytes + 16 * 1024);
    const note = list.items[19].results?.at(-1)?.message;
    expect(note).toMatch(/^\d+ more result items were not kept and \d+ texts were cut/);
  });

  it("cuts the failure message, which joins every error result, to 4,096 characters", async () => {
    const runtime = createFunctionRuntime({
      builtins: {
        "many-errors": () => ({
          items: [],
          results: Array.from({ length: 500 }, (_, i) => ({
            message: `error ${i} ${"e".repeat(100)}`,
            severity: "error" as const,
          })),
        }),
      },
    });
    const out = await renderMutator("image: many-errors", {}, { runtime });
    expect(out.error?.reason).toBe("RenderFailed");
    expect(out.error?.message).toMatch(
      /^package "\.": mutator 0 \(many-errors, runtime builtin\): error 0 e+; error 1 /,
    );
    expect(out.error?.message).toMatch(/… \(\d+ characters dropped\)$/);
    expect(out.error?.message.length).toBeLessThan(4096 + 40);
  });
});
