// A module process under a memory limit, the way its pod runs it: in a memory cgroup of its own.
// Node then sizes its heap from the limit as it does in the pod, and the kernel kills the process
// past the limit (a restart, as a pod's OOM kill). `--max-old-space-size` would imitate only the
// heap, and being a V8 flag it holds for every thread of the process: it overrides the heap
// limits of the built-in function workers (lib/fn/builtin-pool), so a runaway built-in would grow
// to the process's heap here although the pod stops it at its own.
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { spawnSync } from "node:child_process";

export interface MemoryCgroup {
  /** `command args` as run inside the cgroup (the same pid: the shell execs it). */
  wrap(command: string, args: string[]): { command: string; args: string[] };
  /** Removes the cgroup once no process is left in it; never throws. */
  remove(): void;
}

const V1 = "/sys/fs/cgroup/memory";
/** The shell joins the cgroup named by its $0 (its own pid: exec keeps it). */
const JOIN = 'echo $$ > "$0"';
const V2 = "/sys/fs/cgroup";

/** A cgroup `name` limited to `limitBytes`, or why there cannot be one on this machine. */
export function memoryCgroup(
  name: string,
  limitBytes: number,
): MemoryCgroup | { unavailable: string } {
  const v2 =
    existsSync(join(V2, "cgroup.controllers")) &&
    readFileSync(join(V2, "cgroup.subtree_control"), "utf8").includes("memory");
  const root = existsSync(join(V1, "memory.limit_in_bytes")) ? V1 : v2 ? V2 : undefined;
  if (!root) return { unavailable: "no writable memory cgroup hierarchy" };
  const dir = join(root, name);
  try {
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, root === V1 ? "memory.limit_in_bytes" : "memory.max"),
      String(limitBytes),
    );
  } catch (error) {
    return { unavailable: `cannot set up cgroup ${dir}: ${(error as Error).message}` };
  }
  const procs = join(dir, "cgroup.procs");
  // Whether a process may join it (a delegated or nested hierarchy may refuse): a short-lived
  // shell tries, so that a refusal is a fallback here rather than a module that cannot start.
  const probe = spawnSync("/bin/sh", ["-c", JOIN, procs], { encoding: "utf8" });
  if (probe.status !== 0)
    return { unavailable: `cannot join cgroup ${dir}: ${probe.stderr.trim() || "refused"}` };
  return {
    wrap: (command, args) => ({
      command: "/bin/sh",
      args: ["-c", `${JOIN} && exec "$@"`, procs, command, ...args],
    }),
    remove() {
      try {
        rmdirSync(dir);
      } catch {
        // a process is still in it (it is being killed): the next run with this name reuses it
      }
    },
  };
}
