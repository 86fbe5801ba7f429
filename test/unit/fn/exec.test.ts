import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { splitCommand } from "../../../lib/fn/exec";
import { renderPackage } from "../../../lib/fn/render";
import { createFunctionRuntime } from "../../../lib/fn/runtime";
import { kptfile, renderMutator } from "./helpers";

const YAML_MODULE = JSON.stringify(require.resolve("yaml"));
let dir: string;

/** Writes an executable node script that gets the parsed ResourceList as `rl` and prints what `body` returns. */
function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `#!/usr/bin/env node
const YAML = require(${YAML_MODULE});
let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const rl = YAML.parse(input);
  const out = (() => { ${body} })();
  if (out !== undefined) process.stdout.write(YAML.stringify(out));
});
`,
  );
  chmodSync(path, 0o755);
  return path;
}

const allowExec = (limits = {}) => ({
  runtime: createFunctionRuntime({ allowExec: true, exec: limits }),
});
const cm = (name: string, extra = ""): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${extra}`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "fn-exec-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("exec runtime", () => {
  it("speaks the ResourceList protocol: sees paths and config, can edit, add and delete resources, returns results", async () => {
    const fn = script(
      "edit.js",
      `const seen = rl.items.map((i) => i.metadata.annotations["internal.config.kubernetes.io/path"] + "#" + i.metadata.annotations["internal.config.kubernetes.io/index"]);
       const items = rl.items.filter((i) => i.metadata.name !== "drop");
       for (const i of items) i.metadata.labels = { owner: rl.functionConfig.data.owner };
       items.push({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "Generated", namespace: "ns" }, data: { seen: seen.join(",") } });
       return { apiVersion: "config.kubernetes.io/v1", kind: "ResourceList", items,
         results: [{ message: "labelled", severity: "info", resourceRef: { apiVersion: "v1", kind: "ConfigMap", name: "keep" }, field: { path: "metadata.labels" } }] };`,
    );
    const out = await renderMutator(
      `exec: ${fn}\nconfigMap:\n  owner: team-a`,
      {
        "keep.yaml": cm("keep", "data:\n  k: v # comment survives\n"),
        "drop.yaml": cm("drop"),
        "sub/x.yaml": cm("x"),
      },
      allowExec(),
    );
    expect(out.error).toBeUndefined();
    expect(out.files["keep.yaml"]).toBe(
      cm("keep", "  labels:\n    owner: team-a\ndata:\n  k: v # comment survives\n"),
    );
    expect(out.files["drop.yaml"]).toBeUndefined();
    expect(out.files["ns/configmap_generated.yaml"]).toContain(
      "seen: drop.yaml#0,keep.yaml#0,sub/x.yaml#0",
    );
    expect(out.files["ns/configmap_generated.yaml"]).not.toContain("internal.config.kubernetes.io");
    expect(out.steps[0].runtime).toBe("exec");
    expect(out.results.items[0]).toEqual({
      exec: fn,
      exitCode: 0,
      results: [
        {
          message: "labelled",
          severity: "info",
          resourceRef: { apiVersion: "v1", kind: "ConfigMap", name: "keep" },
          field: { path: "metadata.labels" },
        },
      ],
    });
  });

  it("leaves a file untouched when the function returns its resources unchanged", async () => {
    const fn = script("echo.js", "return rl;");
    const text = `# header\n${cm("a", "data:\n  list: [x,  y]   # odd spacing\n")}---\n${cm("b")}`;
    const out = await renderMutator(`exec: ${fn}`, { "r.yaml": text }, allowExec());
    expect(out.files["r.yaml"]).toBe(text);
  });

  it("reports a failing executable with its exit code and stderr, and runs nothing after it", async () => {
    const fn = script(
      "fail.js",
      `process.stderr.write("cannot reach the database\\n"); process.exitCode = 2; return undefined;`,
    );
    const pipeline = `  mutators:\n    - exec: ${fn}\n    - image: set-labels\n      configMap:\n        a: b\n`;
    const out = await renderPackage({ Kptfile: kptfile(pipeline), "a.yaml": cm("a") }, allowExec());
    expect(out.ok).toBe(false);
    expect(out.error?.message).toContain("exited with code 2");
    expect(out.error?.message).toContain("cannot reach the database");
    expect(out.results.items).toEqual([
      { exec: fn, exitCode: 2, stderr: "cannot reach the database\n" },
    ]);
    expect(out.files["a.yaml"]).toBe(cm("a"));
  });

  it("treats error results as a failure, also for validators", async () => {
    const fn = script(
      "deny.js",
      `return { ...rl, results: [{ message: "replicas must be set", severity: "error" }] };`,
    );
    const out = await renderPackage(
      { Kptfile: kptfile(`  validators:\n    - exec: ${fn}\n`), "a.yaml": cm("a") },
      allowExec(),
    );
    expect(out.ok).toBe(false);
    expect(out.error).toMatchObject({ stage: "validator", index: 0 });
    expect(out.error?.message).toContain("replicas must be set");
  });

  it("is refused unless the runtime allows exec", async () => {
    const fn = script("never.js", "return rl;");
    const out = await renderMutator(`exec: ${fn}`, { "a.yaml": cm("a") });
    expect(out.error?.message).toContain(
      `cannot run exec function ${JSON.stringify(fn)}: the exec runtime is disabled`,
    );
    expect(out.results.items).toEqual([]);
  });

  it("kills a function that runs too long or writes too much", async () => {
    const slow = script(
      "slow.js",
      "setTimeout(() => process.stdout.write(YAML.stringify(rl)), 60000); return undefined;",
    );
    const timedOut = await renderMutator(
      `exec: ${slow}`,
      { "a.yaml": cm("a") },
      allowExec({ timeoutMs: 300 }),
    );
    expect(timedOut.error?.message).toContain("timed out after 300 ms");
    const loud = script(
      "loud.js",
      `return { ...rl, items: rl.items.map((i) => ({ ...i, data: { big: "x".repeat(100000) } })) };`,
    );
    const tooBig = await renderMutator(
      `exec: ${loud}`,
      { "a.yaml": cm("a") },
      allowExec({ maxOutputBytes: 1000 }),
    );
    expect(tooBig.error?.message).toContain("wrote more than 1000 bytes to stdout");
  });

  it("rejects output resources placed outside the package", async () => {
    const fn = script(
      "escape.js",
      `rl.items[0].metadata.annotations["internal.config.kubernetes.io/path"] = "../x.yaml"; return rl;`,
    );
    const out = await renderMutator(`exec: ${fn}`, { "a.yaml": cm("a") }, allowExec());
    expect(out.error?.message).toContain(
      'function must not modify resources outside of package: resource has path "../x.yaml"',
    );
  });
});

describe("splitCommand", () => {
  it.each([
    ["/usr/bin/fn", ["/usr/bin/fn"]],
    ["fn --flag value", ["fn", "--flag", "value"]],
    [`fn "two words" 'single quoted' a\\ b`, ["fn", "two words", "single quoted", "a b"]],
    [`fn ""`, ["fn", ""]],
  ])("%s", (command, expected) => {
    expect(splitCommand(command)).toEqual(expected);
  });

  it("rejects an unterminated quote", () => {
    expect(() => splitCommand('fn "open')).toThrow("unterminated quote");
  });
});
