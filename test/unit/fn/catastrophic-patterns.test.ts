import { renderMutator } from "./helpers";

// Patterns and globs come from tenants (function configs, setter comments in package files).
// Each of these takes exponential or high-polynomial time in a backtracking engine and would
// hang the test; with RE2 each render simply completes (no timing assertion on purpose).
const CONFIG_MAP = (name: string, value: string) =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  value: ${value}\n`;

describe("tenant patterns in built-in functions run in linear time", () => {
  it("search-replace by-value-regex `(a+)+` against 40 a's and a bang", async () => {
    const out = await renderMutator(
      "image: gcr.io/kpt-fn/search-replace:v0.2.0\nconfigMap:\n  by-value-regex: (a+)+\n  put-value: x",
      { "cm.yaml": CONFIG_MAP("cm", `${"a".repeat(40)}!`) },
    );
    expect(out.ok).toBe(true);
    expect(out.results.items[0].results).toEqual([{ message: "no matches" }]);
  });

  it("search-replace by-value-regex with a backreference fails the render naming the pattern", async () => {
    const out = await renderMutator(
      "image: gcr.io/kpt-fn/search-replace:v0.2.0\nconfigMap:\n  by-value-regex: (a)\\1\n  put-value: x",
      { "cm.yaml": CONFIG_MAP("cm", "aa") },
    );
    expect(out.ok).toBe(false);
    expect(JSON.stringify(out.results)).toContain("invalid regular expression");
    expect(JSON.stringify(out.results)).toContain("invalid escape sequence");
  });

  it("search-replace by-file-path with many stars against a long file name", async () => {
    const name = `${"a".repeat(300)}.yaml`;
    const out = await renderMutator(
      `image: gcr.io/kpt-fn/search-replace:v0.2.0\nconfigMap:\n  by-file-path: "${"*a".repeat(12)}*b"\n  by-path: metadata.name\n  put-value: x`,
      { [name]: CONFIG_MAP("cm", "v") },
    );
    expect(out.ok).toBe(true);
    expect(out.results.items[0].results).toEqual([{ message: "no matches" }]);
  });

  it("apply-setters recovers setter values from a many-setter pattern on a long value", async () => {
    const pattern = "${a}x${b}x${c}x${d}x${e}x${f}x${g}x${h}y";
    const out = await renderMutator(
      "image: gcr.io/kpt-fn/apply-setters:v0.2.0\nconfigMap:\n  a: z",
      { "cm.yaml": `${CONFIG_MAP("cm", "x".repeat(3000)).trimEnd()} # kpt-set: ${pattern}\n` },
    );
    // The other setters cannot be recovered from a value without the `y`: the render says so.
    expect(out.ok).toBe(false);
    expect(JSON.stringify(out.results)).toContain("must be provided");
  });
});
