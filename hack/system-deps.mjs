#!/usr/bin/env node
// What `npm test` needs of the machine beyond Node.js and Go, installed before any test runs:
// git and openssl for the embedded default; iptables, iproute2, pkg-config and libseccomp for the
// deploy suite's real node (runc links libseccomp: without it every Pod asking for a seccomp
// profile fails to start). `.ci/run` and `npm test` both call this, so a fresh machine gets the
// same set-up from either. Plain Node, no dependencies: it runs before node_modules exist.
//
// As root (or with password-less sudo) it installs what is missing with apt-get; otherwise it
// stops with the one command to run, before any test has started.
import { spawnSync } from "node:child_process";

const succeeds = (command, args) => spawnSync(command, args, { stdio: "ignore" }).status === 0;
const onPath = tool => succeeds("sh", ["-c", `command -v ${tool}`]);

/** Debian package → whether this machine already has what the tests use of it. */
const packages = {
  git: () => onPath("git"),
  openssl: () => onPath("openssl"),
  iptables: () => onPath("iptables"),
  iproute2: () => onPath("ip"),
  "pkg-config": () => onPath("pkg-config"),
  "libseccomp-dev": () =>
    onPath("pkg-config") && succeeds("pkg-config", ["--exists", "libseccomp"]),
};

const missing = Object.keys(packages).filter(name => !packages[name]());
const problems = [];
if (!onPath("go")) problems.push("Go (1.26) is required to build the local control plane and node");

if (missing.length > 0) {
  const install = ["apt-get", "install", "-y", "-qq", ...missing];
  const root = process.getuid?.() === 0;
  const sudo = !root && onPath("sudo") && succeeds("sudo", ["-n", "true"]);
  if ((root || sudo) && onPath("apt-get")) {
    console.error(`installing what the tests need: ${missing.join(" ")}`);
    const run = args =>
      spawnSync(sudo ? "sudo" : args[0], sudo ? args : args.slice(1), {
        stdio: "inherit",
      });
    const ok = run(["apt-get", "update", "-qq"]).status === 0 && run(install).status === 0;
    const still = Object.keys(packages).filter(name => !packages[name]());
    if (!ok || still.length > 0) problems.push(`apt-get could not install: ${still.join(" ")}`);
  } else {
    problems.push(
      `missing: ${missing.join(" ")}; install them first: sudo apt-get install -y ${missing.join(" ")}`,
    );
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(problem);
  process.exit(1);
}
