#!/usr/bin/env node
// Runs a TypeScript entry point (hack/, bench/ scripts) without a separate compile step.
// esbuild ships with pepr; packages stay external so the one copy of kubernetes-fluent-client
// in node_modules is shared (tsx would load a second copy: research/pepr.md §5).
import { build } from "esbuild";
import { mkdirSync, rmSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { createRequire } from "node:module";

// pepr ships its TypeScript sources; the few internals we reuse (the PeprStore CRD) are
// bundled from there rather than copied.
const peprSources = {
  name: "pepr-sources",
  setup(b) {
    b.onResolve({ filter: /^pepr\/src\// }, args => ({
      path: createRequire(pathToFileURL(resolve("package.json"))).resolve(`${args.path}.ts`),
    }));
  },
};

const [entry, ...args] = process.argv.slice(2);
if (!entry) {
  console.error("usage: node hack/run-ts.mjs <file.ts> [args...]");
  process.exit(2);
}
const outDir = resolve(".local/run-ts");
mkdirSync(outDir, { recursive: true });
const outfile = join(outDir, `${basename(entry, ".ts")}-${process.pid}.cjs`);
await build({
  entryPoints: [entry],
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node20",
  packages: "external",
  plugins: [peprSources],
  sourcemap: "inline",
  outfile,
  logLevel: "warning",
});
process.once("exit", () => rmSync(outfile, { force: true }));
process.argv = [process.argv[0], outfile, ...args];
createRequire(pathToFileURL(outfile))(outfile);
