import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderPackage } from "../../../lib/fn/render";
import { createFunctionRuntime } from "../../../lib/fn/runtime";
import { catalogHolder, execCatalog } from "../../support/function-catalog";
import { kptfile, renderMutator } from "./helpers";

const YAML_MODULE = JSON.stringify(require.resolve("yaml"));
let dir: string;
/** What the catalog runs: every script written below, by its path. */
const allowed: Record<string, string> = {};

/** Writes an executable node script that gets the parsed ResourceList as `rl` and prints what `body` returns. */
function script(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(
    path,
    `#!${process.execPath}
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
  allowed[path] = path;
  return path;
}

/** A runtime whose catalog runs every script written so far, each by its path. */
const allowExec = (
  limits: { timeout?: string; maxOutputBytes?: number; maxInputBytes?: number } = {},
) => ({
  runtime: createFunctionRuntime({ catalog: execCatalog(allowed, limits) }),
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
      runtime: "exec",
      durationMs: expect.any(Number),
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
      {
        exec: fn,
        runtime: "exec",
        durationMs: expect.any(Number),
        exitCode: 2,
        stderr: "cannot reach the database\n",
      },
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

  it("is refused unless a catalog entry names the executable exactly", async () => {
    const fn = script("never.js", "return rl;");
    const defaults = await renderMutator(`exec: ${fn}`, { "a.yaml": cm("a") });
    expect(defaults.error?.message).toContain(
      `exec function ${JSON.stringify(fn)} is not allowed: the function catalog has no entry for it (ask the administrator)`,
    );
    expect(defaults.error?.reason).toBe("ExecDenied");
    expect(defaults.results.items).toEqual([]);
    const other = createFunctionRuntime({ catalog: execCatalog({ other: "/usr/bin/true" }) });
    const unlisted = await renderMutator(`exec: ${fn}`, { "a.yaml": cm("a") }, { runtime: other });
    expect(unlisted.error?.message).toContain(
      `exec function ${JSON.stringify(fn)} is not allowed: the function catalog has no entry for it`,
    );
    // Arguments are the tenant's: a cataloged path with arguments is another command.
    const withArgs = await renderMutator(`exec: ${fn} --x`, { "a.yaml": cm("a") }, allowExec());
    expect(withArgs.error?.message).toContain("the function catalog has no entry for it");
    // An image pattern never matches an exec name, even one that looks like the image.
    const byImage = catalogHolder({
      functions: [{ image: "**/never.js:*", runtime: "exec", executable: { path: fn } }],
    });
    const imageOnly = createFunctionRuntime({ catalog: byImage });
    const out = await renderMutator(
      `exec: never.js`,
      { "a.yaml": cm("a") },
      { runtime: imageOnly },
    );
    expect(out.error?.reason).toBe("ExecDenied");
  });

  it("runs an image the catalog maps to an executable, and says so in the result", async () => {
    const fn = script("by-image.js", 'rl.items[0].data = { ran: "by-image" }; return rl;');
    const catalog = catalogHolder({
      functions: [
        { image: "example.com/fns/labeller:v1.*", runtime: "exec", executable: { path: fn } },
      ],
    });
    const runtime = createFunctionRuntime({ catalog });
    const image = "example.com/fns/labeller:v1.4.2";
    const out = await renderMutator(`image: ${image}`, { "a.yaml": cm("a") }, { runtime });
    expect(out.error).toBeUndefined();
    expect(out.files["a.yaml"]).toContain("ran: by-image");
    const [result] = out.results.items;
    expect(result).toMatchObject({ image, runtime: "exec", exitCode: 0 });
    expect(typeof result.durationMs).toBe("number");
    // v2 is not in the range: no entry, and no built-in of that name.
    const v2 = await renderMutator(`image: example.com/fns/labeller:v2.0.0`, {}, { runtime });
    expect(v2.error?.reason).toBe("FunctionUnavailable");
  });

  it("names the image, the runtime and the reason when a cataloged executable fails", async () => {
    const fn = script("fails.js", "process.exit(3);");
    const catalog = catalogHolder({
      functions: [{ image: "example.com/fns/fails:*", runtime: "exec", executable: { path: fn } }],
    });
    const out = await renderMutator(
      "image: example.com/fns/fails:v1",
      { "a.yaml": cm("a") },
      { runtime: createFunctionRuntime({ catalog }) },
    );
    expect(out.error?.message).toBe(
      'package ".": mutator 0 (example.com/fns/fails:v1, runtime exec): exited with code 3',
    );
    expect(out.error?.reason).toBe("RenderFailed");
  });

  it("runs a cataloged name as the path it stands for", async () => {
    const fn = script("named.js", "return rl;");
    const runtime = createFunctionRuntime({ catalog: execCatalog({ "my-fn": fn }) });
    const out = await renderMutator("exec: my-fn", { "a.yaml": cm("a") }, { runtime });
    expect(out.error).toBeUndefined();
    expect(out.steps[0].runtime).toBe("exec");
  });

  it("gives the function a scrubbed environment and a fresh working directory of its own", async () => {
    const fn = script(
      "env.js",
      `rl.items[0].data = { env: JSON.stringify(process.env), cwd: process.cwd() };
       return rl;`,
    );
    // What an operator Pod's environment holds, the service-account token's whereabouts included.
    const planted = {
      KUBERNETES_SERVICE_HOST: "10.0.0.1",
      KUBERNETES_SERVICE_PORT: "443",
      AWS_WEB_IDENTITY_TOKEN_FILE: "/var/run/secrets/eks.amazonaws.com/serviceaccount/token",
      NODE_OPTIONS: "--require /tmp/evil.js",
      PORCH_PEPR_GIT_CACHE: "/tmp/porch-pepr-git",
      GIT_TOKEN: "secret-token",
      KUBECONFIG: "/root/.kube/config",
    };
    Object.assign(process.env, planted);
    let out;
    try {
      out = await renderMutator(`exec: ${fn}`, { "a.yaml": cm("a") }, allowExec());
    } finally {
      for (const name of Object.keys(planted)) delete process.env[name];
    }
    expect(out.error).toBeUndefined();
    const data = (await import("yaml")).parse(out.files["a.yaml"]).data as Record<string, string>;
    const env = JSON.parse(data.env) as Record<string, string>;
    expect(env).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: data.cwd,
      TMPDIR: data.cwd,
      LANG: "C.UTF-8",
    });
    expect(data.env).not.toMatch(/serviceaccount|secret|kube/i);
    expect(data.cwd).not.toBe(process.cwd());
    expect(data.cwd.startsWith(tmpdir())).toBe(true);
    expect(existsSync(data.cwd)).toBe(false);
  });

  it("kills a function that runs too long or writes too much", async () => {
    const slow = script(
      "slow.js",
      "setTimeout(() => process.stdout.write(YAML.stringify(rl)), 60000); return undefined;",
    );
    const timedOut = await renderMutator(
      `exec: ${slow}`,
      { "a.yaml": cm("a") },
      allowExec({ timeout: "300ms" }),
    );
    expect(timedOut.error?.message).toContain("timed out after 300 ms");
    expect(timedOut.error?.reason).toBe("FunctionTimeout");
    const loud = script(
      "loud.js",
      `return { ...rl, items: rl.items.map((i) => ({ ...i, data: { big: "x".repeat(100000) } })) };`,
    );
    const tooBig = await renderMutator(
      `exec: ${loud}`,
      { "a.yaml": cm("a") },
      allowExec({ maxOutputBytes: 1024 }),
    );
    expect(tooBig.error?.message).toContain("wrote more than 1024 bytes to stdout");
    expect(tooBig.error?.reason).toBe("FunctionOutputLimit");
    // The input is bounded before the process starts.
    const tooMuch = await renderMutator(
      `exec: ${loud}`,
      { "a.yaml": cm("a", `data:\n  big: ${"x".repeat(2000)}\n`) },
      allowExec({ maxInputBytes: 1024 }),
    );
    expect(tooMuch.error?.reason).toBe("FunctionInputLimit");
    expect(tooMuch.error?.message).toMatch(
      /its input ResourceList is \d+ bytes, more than maxInputBytes 1024$/,
    );
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

  it.each([".git/config", "evil\u0007.yaml", "a\\b.yaml"])(
    "rejects output resources written to the unsafe file name %j",
    async path => {
      const fn = script(
        `unsafe-${Object.keys(allowed).length}.js`,
        `rl.items[0].metadata.annotations["internal.config.kubernetes.io/path"] = ${JSON.stringify(path)}; return rl;`,
      );
      const out = await renderMutator(`exec: ${fn}`, { "a.yaml": cm("a") }, allowExec());
      expect(out.ok).toBe(false);
      expect(out.error?.message).toContain("function wrote a resource to an unsafe file name");
      expect(out.files).toEqual(expect.objectContaining({ "a.yaml": cm("a") }));
      expect(Object.keys(out.files)).not.toContain(path);
    },
  );
});
