import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../cluster/paths";

// `npx pepr build` and `npx pepr deploy` as a user runs them, in a copy of the module's sources:
// both write dist/ in the current directory, which the e2e tests of this checkout read, and the
// copy's package.json carries the install's settings (`pepr.env`), as a user's would.

/** What `npx pepr build` bundles: the module's entry point and everything it imports. */
const MODULE_SOURCES = [
  "pepr.ts",
  "capabilities",
  "lib",
  "crds",
  "crd-types",
  "tsconfig.json",
  "package-lock.json",
];

/**
 * A copy of the module at `dir` (a new temporary directory unless given) with this checkout's
 * node_modules linked in and `env` merged into package.json's `pepr.env`: the settings both
 * Deployments get (README, Installing on a real cluster).
 */
export function prepareInstallDir(env: Record<string, string>, dir?: string): string {
  const target = dir ?? mkdtempSync(join(tmpdir(), "porch-pepr-install-"));
  for (const source of MODULE_SOURCES) {
    cpSync(join(repoRoot, source), join(target, source), { recursive: true });
  }
  symlinkSync(join(repoRoot, "node_modules"), join(target, "node_modules"));
  const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8"));
  pkg.pepr.env = { ...pkg.pepr.env, ...env };
  writeFileSync(join(target, "package.json"), `${JSON.stringify(pkg, null, 2)}\n`);
  return target;
}

/**
 * Runs `npx <args>` in `dir`. `npx pepr build` and `npx pepr deploy` report a failed build (a
 * type error, a missing file) and still exit 0, after which deploy applies nothing: that text
 * is a failure here too, with the compiler's lines, rather than a later "no Pods".
 */
function npx(dir: string, args: string[], kubeconfig?: string): string {
  const result = spawnSync("npx", args, {
    cwd: dir,
    env: { ...process.env, ...(kubeconfig && { KUBECONFIG: kubeconfig }) },
    stdio: ["ignore", "pipe", "pipe"],
    maxBuffer: 64 * 1024 * 1024,
    timeout: 10 * 60_000,
    encoding: "utf8",
  });
  const output = `${result.stdout ?? ""}\n${result.stderr ?? ""}`;
  const buildFailed = output.includes("Error building module");
  if (result.status === 0 && !buildFailed) return result.stdout;
  const compiler = output.split("\n").filter(line => /error TS\d+/.test(line));
  const tail = output.split("\n").slice(-30);
  throw new Error(
    `npx ${args.join(" ")} failed (${result.error?.message ?? `exit ${result.status}`}${buildFailed ? ", Error building module" : ""}):\n${(compiler.length > 0 ? compiler : tail).join("\n")}`,
  );
}

/**
 * `npx pepr build --custom-image <image>` (dist/: the manifest, Helm chart and zarf.yaml name
 * our image), then `npx pepr deploy --yes --image <image>`: deploy builds the module again and
 * takes the image from its own `--image` (without it, the stock image of pepr's version), not
 * from the earlier build. It returns once every Deployment in pepr-system is rolled out.
 */
export function peprBuildAndDeploy(dir: string, image: string, kubeconfig: string): void {
  npx(dir, ["pepr", "build", "--custom-image", image]);
  npx(dir, ["pepr", "deploy", "--yes", "--image", image], kubeconfig);
}
