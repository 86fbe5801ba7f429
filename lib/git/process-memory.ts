// The memory one git CLI process may take (PORCH_PEPR_GIT_PROCESS_MEMORY_BYTES). Our limits on
// refs and packs are checked on what git wrote, after git held it: a server advertising a
// million refs made one `git fetch` take 1.4 GB for minutes before any of our bounds could see
// a ref. So git runs with its data segment bounded (RLIMIT_DATA: heap and private writable
// mappings, not the read-only mappings of pack files), set by `ulimit -d` in the `sh` that
// execs it (git needs a shell for itself; the process keeps its pid and group); its helpers
// (git-remote-http, index-pack) inherit the bound. git's own caches are sized to fit inside it,
// and a git that runs out says so on stderr, which becomes a ContentTooLarge error naming the
// setting.
export const GIT_PROCESS_MEMORY_SETTING = "PORCH_PEPR_GIT_PROCESS_MEMORY_BYTES";
/**
 * 256 MiB: a fetch at the per-fetch limit (128 MiB) indexes within it with git's caches at a
 * fraction of it; half a 512 MiB watcher Pod, so one hostile server cannot take the Pod past
 * its limit through git.
 */
export const DEFAULT_GIT_PROCESS_MEMORY = 256 * 1024 * 1024;

/**
 * `git args` run with at most `bytes` of data memory: the command and its arguments. Where the
 * process may not raise its hard limit that far, a lower hard limit binds git instead; git never
 * runs without a bound.
 */
export function boundedGit(args: readonly string[], bytes: number): [string, string[]] {
  const kib = Math.max(1024, Math.floor(bytes / 1024));
  const bound = `ulimit -d ${kib} 2>/dev/null || [ "$(ulimit -H -d)" != unlimited ]`;
  return ["sh", ["-c", `${bound} && exec "$0" "$@"`, "git", ...args]];
}

/**
 * git's caches that grow with the repository (delta bases while reading or indexing, the delta
 * window and cache while repacking), each an eighth of the bound: git keeps them within these
 * sizes instead of failing when the bound is reached.
 */
export function cacheConfigWithin(bytes: number): [string, string][] {
  const eighth = String(Math.max(1024 * 1024, Math.floor(bytes / 8)));
  return [
    ["core.deltaBaseCacheLimit", eighth],
    ["pack.windowMemory", eighth],
    ["pack.deltaCacheSize", eighth],
    ["pack.threads", "1"],
  ];
}

/** Whether git's stderr says it (or a helper) could not get memory. */
export const outOfMemory = (stderr: string): boolean =>
  /Out of memory|Cannot allocate memory|unable to create thread/i.test(stderr);

/** What a git run that ran out of its memory says, naming the bound and its setting. */
export const outOfMemoryMessage = (sub: string, shownUrl: string, bytes: number): string =>
  `git ${sub} for ${shownUrl} ran out of the ${bytes} bytes of memory a git process may take (${GIT_PROCESS_MEMORY_SETTING})`;
