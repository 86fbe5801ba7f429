// GitClient on the git CLI (execFile of `git`): the fastest option, needs git in the image.
// Credentials travel as an http.extraHeader in GIT_CONFIG_* environment variables, never in argv
// or the URL, so they do not show in the process list or in git's own messages. Network calls
// are bounded (curl's low-speed limit for idleness, the process group killed at the total
// timeout), follow no redirect, connect only to the addresses the URL policy checked (pinned
// with http.curloptResolve), and report only git's own "fatal:"/"error:" lines, never the
// "remote:" lines in which git quotes a server's response body.
import { spawn } from "node:child_process";
import { readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import {
  authorizationHeader,
  secretsOf,
  type ClientOptions,
  type CommitInfo,
  type CommitSpec,
  type GitClient,
  type RefMap,
  type RefUpdate,
  type RefVerdicts,
  type TreeEntry,
} from "./client";
import { advertisedInTraceFile, type AdvertisedRefs } from "./advertisement";
import { GitStoreError, PushRejectedError, displayUrl, scrubSecrets } from "./errors";
import {
  assertUrlAllowed,
  checkedAddresses,
  gitNetworkFromEnv,
  gitProcessMemoryOf,
  limitsOf,
  lowSpeedOf,
  type GitNetwork,
  type GitTimeouts,
} from "./network";
import {
  REF_LINE_BYTES,
  historyBytes,
  historyTooLarge,
  objectLimit,
  tooManyRefs,
} from "./content-limits";
import { walkTree } from "./tree";
import { PackBound, killGroup } from "./pack-bound";
import { boundedGit, cacheConfigWithin, outOfMemory, outOfMemoryMessage } from "./process-memory";
import { HeadAndTail, MESSAGE_MAX_BYTES } from "./output-cap";
import { CatFileBatch } from "./cat-file";
import { parseCommit, parseSignature } from "./commit-format";
import { encodeCommit, encodeTree, parseTree, writeLooseObject } from "./loose-objects";

interface RunResult {
  stdout: Buffer;
  stderr: string;
}

/** A failed git run; `output` (stderr and stdout, unfiltered) is only matched, never shown. */
class GitRunError extends GitStoreError {
  constructor(
    code: GitStoreError["code"],
    message: string,
    readonly output: string,
    /** Standard output alone, of a run that got as far as running git. */
    readonly stdout?: string,
  ) {
    super(code, message);
  }
}

type ConfigEntry = [string, string];

/**
 * How often a fetch is followed by `git gc --auto` (git's own fetch runs it every time). Each
 * fetch keeps what it brought as one pack (unpackLimit=1); gc --auto repacks past 50 packs, so
 * asking every 16th fetch leaves at most 65 between repacks, and saves a process spawn per
 * fetch: the spawns of the git CLI were a fifth of the watcher's CPU while 1,000 revisions were
 * published.
 */
export const GC_EVERY_FETCHES = 16;

/** Names the packet traces of pushes apart. */
let traces = 0;

export class CliGitClient implements GitClient {
  readonly kind = "cli" as const;
  private readonly secrets: string[];
  private readonly env: NodeJS.ProcessEnv;
  private readonly reader: CatFileBatch;
  private readonly network: GitNetwork;
  /**
   * Whether a git process on this cache may have been killed since the last removeStaleLocks:
   * true at first (an earlier process of ours may have died mid-fetch), then only after a git
   * run ended by a signal. Walking every ref directory before each fetch cost a fifth of the
   * watcher's CPU while 1,000 revisions were published.
   */
  private locksMaybeLeft = true;
  /**
   * The cache's refs as this client's last fetch left them (only a fetch, or its undoing,
   * moves them: pushes name the URL, not a remote), so the next fetch knows what to restore
   * without listing them first; undefined until a fetch succeeded, and while one runs.
   */
  private fetchedRefs: string[] | undefined;
  /** Fetches since `git gc --auto` last ran: it runs at the first and every GC_EVERY_FETCHES. */
  private fetchesSinceGc = GC_EVERY_FETCHES;

  constructor(private readonly opts: ClientOptions) {
    this.secrets = secretsOf(opts.credentials);
    this.network = opts.network ?? gitNetworkFromEnv(process.env);
    this.env = gitEnv(authorizationHeader(opts.credentials), this.network);
    this.reader = new CatFileBatch(opts.gitdir, this.env, gitProcessMemoryOf(this.network));
  }

  async init(): Promise<void> {
    if (await exists(join(this.opts.gitdir, "HEAD"))) return;
    await this.git(["init", "--quiet", "--bare", this.opts.gitdir], { bare: false });
    // A foreground gc keeps two writers on one cache from racing a detached one.
    await this.git(["config", "gc.autoDetach", "false"]);
  }

  async fetch(): Promise<RefMap> {
    const refspecs = ["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"];
    if (this.locksMaybeLeft) {
      this.locksMaybeLeft = false;
      await removeStaleLocks(this.opts.gitdir);
    }
    // Refs an earlier fetch kept under a higher limit: the cache starts again.
    const before = this.fetchedRefs ?? (await this.refsWithinLimit()) ?? [];
    this.fetchedRefs = undefined;
    const bound = await PackBound.start(this.opts.gitdir, limitsOf(this.network));
    try {
      // unpackLimit=1: what arrives is kept as a pack file, whose growth the bound can watch;
      // gc.auto=0: no repack during the fetch writes a pack the bound would count (or remove).
      await this.git(
        [
          "-c",
          "fetch.unpackLimit=1",
          "-c",
          "gc.auto=0",
          "-c",
          "maintenance.auto=false",
          "fetch",
          "--quiet",
          "--prune",
          "--no-write-fetch-head",
          this.opts.url,
          ...refspecs,
        ],
        { network: true, spawned: bound.watch },
      );
      await bound.check();
    } catch (err) {
      if (!bound.exceeded) {
        await bound.discardTemporary();
        throw err;
      }
      // Refused, not half taken: the refs and packs are as they were before this fetch. The
      // bound may have killed git as it updated refs, leaving their lock files behind.
      await removeStaleLocks(this.opts.gitdir);
      await this.restoreRefs(before);
      await bound.discard();
      throw new GitStoreError(
        "ContentTooLarge",
        `git fetch from ${displayUrl(this.opts.url)} brought more than it may: ${bound.says}`,
      );
    } finally {
      bound.stop();
    }
    const fetched = await this.refsWithinLimit();
    if (fetched === undefined) throw tooManyRefs(displayUrl(this.opts.url), limitsOf(this.network));
    // The housekeeping the fetch would have done, now that what it brought is within bounds;
    // bounded by the total timeout too (a repack of a large cache is as long as a fetch).
    if (++this.fetchesSinceGc >= GC_EVERY_FETCHES) {
      this.fetchesSinceGc = 0;
      await this.git(["gc", "--auto", "--quiet"], { timed: true });
    }
    this.fetchedRefs = fetched;
    const refs: RefMap = new Map();
    for (const line of fetched) {
      const [local, oid, peeled] = line.split(" ");
      if (!local || !oid) continue;
      const remote = local.startsWith("refs/remotes/origin/")
        ? `refs/heads/${local.slice(20)}`
        : local;
      if (remote === "refs/heads/HEAD") continue;
      refs.set(remote, { oid, commit: peeled || oid });
    }
    return refs;
  }

  /**
   * The cache's refs, or undefined when they are over the ref limit: the cache holds refs it may
   * not keep, so it is emptied and started again (the next fetch takes the repository anew). The
   * limit is checked on what a fetch took, not on a listing of its own: a server may advertise a
   * short list to that and a flood to the fetch.
   */
  private async refsWithinLimit(): Promise<string[] | undefined> {
    try {
      return await this.localRefs();
    } catch (err) {
      if (!(err instanceof GitStoreError) || err.code !== "ContentTooLarge") throw err;
      this.reader.close();
      await rm(this.opts.gitdir, { recursive: true, force: true });
      await this.init();
      return undefined;
    }
  }

  /**
   * "<ref> <oid> <peeled>" lines of the remote-tracking branches and tags, git ended (and
   * ContentTooLarge thrown) past the ref limit's lines or bytes.
   */
  private async localRefs(): Promise<string[]> {
    const limits = limitsOf(this.network);
    const out = await this.git(
      [
        "for-each-ref",
        "--format=%(refname) %(objectname) %(*objectname)",
        "refs/remotes/origin/",
        "refs/tags/",
      ],
      {
        cap: {
          records: limits.maxRefs,
          bytes: limits.maxRefs * REF_LINE_BYTES,
          separator: 0x0a,
          error: () => tooManyRefs(displayUrl(this.opts.url), limits),
        },
      },
    );
    return splitDecoded(out.stdout, 0x0a);
  }

  private async restoreRefs(before: string[]): Promise<void> {
    const old = new Map(before.map(l => l.split(" ") as [string, string]));
    const now = (await this.localRefs()).map(l => l.split(" ")[0]);
    const script = [
      ...now.filter(ref => !old.has(ref)).map(ref => `delete ${ref}`),
      ...[...old].map(([ref, oid]) => `update ${ref} ${oid}`),
    ];
    // An empty script is an error to git ("empty command in input"): nothing to restore.
    if (script.length === 0) return;
    await this.git(["update-ref", "--stdin"], { input: Buffer.from(`${script.join("\n")}\n`) });
  }

  async push(updates: RefUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    const args = ["push", "--porcelain", "--quiet"];
    if (updates.length > 1) args.push("--atomic");
    const refspecs: string[] = [];
    for (const u of updates) {
      // The lease alone allows a non-fast-forward update; a "+" on the refspec would override it.
      if (u.expect !== undefined) args.push(`--force-with-lease=${u.ref}:${u.expect ?? ""}`);
      refspecs.push(u.oid === null ? `:${u.ref}` : `${u.oid}:${u.ref}`);
    }
    try {
      await this.git([...args, this.opts.url, ...refspecs], { network: true });
    } catch (err) {
      if (
        err instanceof GitRunError &&
        /\[rejected\]|\[remote rejected\]|stale info|atomic push failed|already exists|fetch first|non-fast-forward/.test(
          err.output,
        )
      ) {
        // The porcelain "!" lines name each refused ref and why.
        const refused = err.output
          .split("\n")
          .filter(l => l.startsWith("!\t"))
          .map(l => l.slice(2, 300).replace(/\t/g, " "));
        throw new PushRejectedError(
          scrubSecrets(
            `push to ${displayUrl(this.opts.url)} was rejected: ${[err.message, ...refused].join("; ")}`,
            this.secrets,
          ),
        );
      }
      throw err;
    }
  }

  /**
   * One `git push` with a refspec and a lease per update, not atomic: each ref lands or is
   * refused on its own, as the porcelain status lines tell.
   */
  async pushRefs(
    updates: RefUpdate[],
    atomic = false,
    heard?: (refs: AdvertisedRefs) => void,
  ): Promise<RefVerdicts> {
    if (updates.length === 0) return new Map();
    // git's packet trace is where the CLI shows the ref advertisement it pushed against.
    const trace =
      heard === undefined ? undefined : join(this.opts.gitdir, `push-trace-${++traces}`);
    try {
      const verdicts = await this.pushLeased(updates, atomic, trace);
      if (trace !== undefined) {
        const refs = await this.advertisedIn(trace);
        if (refs !== undefined) heard?.(refs);
      }
      return verdicts;
    } finally {
      if (trace !== undefined) await rm(trace, { force: true });
    }
  }

  /**
   * The advertisement in a push's packet trace, read only up to its end; undefined when it does
   * not end within the refs limit's size.
   */
  private advertisedIn(trace: string): Promise<AdvertisedRefs | undefined> {
    const { maxRefs } = limitsOf(this.network);
    // Lines as git traces them: its prefix and the packet, within a ref line's bytes twice.
    return advertisedInTraceFile(trace, 2 * maxRefs * REF_LINE_BYTES + 65536);
  }

  private async pushLeased(
    updates: RefUpdate[],
    atomic: boolean,
    trace: string | undefined,
  ): Promise<RefVerdicts> {
    const args = ["push", "--porcelain"];
    if (atomic && updates.length > 1) args.push("--atomic");
    const refspecs: string[] = [];
    for (const u of updates) {
      if (u.expect !== undefined) args.push(`--force-with-lease=${u.ref}:${u.expect ?? ""}`);
      refspecs.push(u.oid === null ? `:${u.ref}` : `${u.oid}:${u.ref}`);
    }
    let stdout: string;
    let refused = false;
    try {
      const env = trace === undefined ? undefined : { GIT_TRACE_PACKET: trace };
      stdout = (
        await this.git([...args, this.opts.url, ...refspecs], { network: true, env })
      ).stdout.toString("utf8");
    } catch (err) {
      // A refused ref makes git exit 1; its status lines are then on stdout with the others'.
      if (!(err instanceof GitRunError) || err.stdout === undefined) throw err;
      stdout = err.stdout;
      refused = /atomic push failed|atomic transaction failed/.test(err.output);
    }
    const verdicts = porcelainVerdicts(
      stdout,
      updates.map(u => u.ref),
      this.secrets,
    );
    // An atomic push git gave up before it sent: every ref is refused with it.
    if (atomic && refused)
      for (const u of updates)
        if (!verdicts.has(u.ref)) verdicts.set(u.ref, { moved: true, says: "atomic push failed" });
    if (verdicts.size < updates.length)
      throw new GitStoreError(
        "Transport",
        `git push (${displayUrl(this.opts.url)}) failed: git reported no status for ${updates.length - verdicts.size} of ${updates.length} refs`,
      );
    return verdicts;
  }

  async readTree(treeOid: string): Promise<TreeEntry[]> {
    const { body } = await this.object(treeOid, "tree");
    return parseTree(body, treeOid, limitsOf(this.network).maxTreeEntries);
  }

  listTree(treeOid: string): Promise<TreeEntry[]> {
    return walkTree(this, treeOid, limitsOf(this.network));
  }

  async readBlobs(oids: string[]): Promise<Map<string, Buffer>> {
    const result = new Map<string, Buffer>();
    const bodies = await Promise.all(oids.map(oid => this.object(oid, "blob")));
    oids.forEach((oid, i) => result.set(oid, bodies[i].body));
    return result;
  }

  async readCommit(oid: string): Promise<CommitInfo> {
    return { oid, ...parseCommit((await this.object(oid, "commit")).body.toString("utf8")) };
  }

  async log(oid: string, max: number): Promise<CommitInfo[]> {
    const format = "%H%x1f%T%x1f%P%x1f%an%x1f%ae%x1f%at %ad%x1f%cn%x1f%ce%x1f%ct %cd%x1f%B%x1e";
    const limits = limitsOf(this.network);
    const out = await this.git(
      [
        "log",
        "--first-parent",
        `--max-count=${max}`,
        "--date=format:%z",
        `--format=${format}`,
        oid,
      ],
      {
        cap: {
          records: max,
          bytes: historyBytes(limits),
          separator: 0x1e,
          error: () => historyTooLarge(oid, limits),
        },
      },
    );
    return splitDecoded(out.stdout, 0x1e)
      .map(r => r.replace(/^\n/, ""))
      .filter(r => r !== "")
      .map(record => {
        const [h, tree, parents, an, ae, adate, cn, ce, cdate, message] = record.split("\x1f");
        return {
          oid: h,
          tree,
          parents: parents === "" ? [] : parents.split(" "),
          message,
          author: parseSignature(`${an} <${ae}> ${adate}`),
          committer: parseSignature(`${cn} <${ce}> ${cdate}`),
        };
      });
  }

  // Objects are written as loose objects directly: no process per blob, tree or commit.
  writeBlobs(contents: Buffer[]): Promise<string[]> {
    return Promise.all(contents.map(c => writeLooseObject(this.opts.gitdir, "blob", c)));
  }

  writeTree(entries: TreeEntry[]): Promise<string> {
    return writeLooseObject(this.opts.gitdir, "tree", encodeTree(entries));
  }

  writeCommit(spec: CommitSpec): Promise<string> {
    return writeLooseObject(this.opts.gitdir, "commit", encodeCommit(spec));
  }

  close(): void {
    this.reader.close();
  }

  private async object(oid: string, type: string) {
    const obj = await this.reader.read(oid, objectLimit(type, limitsOf(this.network)));
    if (obj.type !== type)
      throw new GitStoreError(
        "Transport",
        `git object ${oid} is a ${obj.type}, expected a ${type}`,
      );
    return obj;
  }

  private async git(
    args: string[],
    o: {
      input?: Buffer;
      env?: NodeJS.ProcessEnv;
      network?: boolean;
      bare?: boolean;
      /** A local call ended (with its process group) at the total timeout, as network calls are. */
      timed?: boolean;
      /** Told the process (group leader of a network call) once it runs. */
      spawned?: (pid: number | undefined) => void;
      /**
       * Past this much stdout (records ended by `separator`, NUL unless given, or bytes) git is
       * killed and `error` thrown; MESSAGE_MAX_BYTES when not given.
       */
      cap?: { records: number; bytes: number; separator?: number; error: () => GitStoreError };
    } = {},
  ): Promise<RunResult> {
    const full = o.bare === false ? args : [`--git-dir=${this.opts.gitdir}`, ...args];
    const pinned = o.network === true ? await this.pinnedAddresses() : [];
    const env = { ...withConfig(this.env, pinned), ...o.env };
    const { totalMs } = this.network.timeouts;
    const timed = o.network === true || o.timed === true;
    const sub = subcommandOf(args);
    return new Promise((resolve, reject) => {
      // Its own process group, so the total timeout also ends git-remote-http under it.
      const [command, argv] = boundedGit(full, gitProcessMemoryOf(this.network));
      const child = spawn(command, argv, {
        env,
        stdio: ["pipe", "pipe", "pipe"],
        detached: timed,
      });
      o.spawned?.(child.pid);
      let timedOut = false;
      const timer = timed
        ? setTimeout(() => {
            timedOut = true;
            killGroup(child.pid);
          }, totalMs)
        : undefined;
      const end = () => (timed ? killGroup(child.pid) : child.kill("SIGKILL"));
      // Output nobody bounded is held to what no real git call writes, as messages are.
      const cap = o.cap ?? {
        records: Infinity,
        bytes: MESSAGE_MAX_BYTES,
        error: () => this.flooded(sub, "output", o.network === true),
      };
      const out: Buffer[] = [];
      const err = new HeadAndTail();
      let records = 0;
      let bytes = 0;
      let capped = false;
      let flooded = false;
      child.stdout.on("data", (d: Buffer) => {
        if (capped) return;
        bytes += d.length;
        const sep = cap.separator ?? 0;
        if (cap.records !== Infinity)
          for (let i = d.indexOf(sep); i !== -1; i = d.indexOf(sep, i + 1)) records++;
        if (records > cap.records || bytes > cap.bytes) {
          capped = true;
          out.length = 0;
          end();
          return;
        }
        out.push(d);
      });
      child.stderr.on("data", (d: Buffer) => {
        if (flooded) return;
        err.add(d);
        if (err.total <= MESSAGE_MAX_BYTES) return;
        flooded = true;
        end();
      });
      child.on("error", e => {
        clearTimeout(timer);
        reject(new GitStoreError("Transport", `cannot run git: ${e.message}`));
      });
      child.on("close", (code, signal) => {
        clearTimeout(timer);
        // SIGKILL leaves git's lock files behind (it removes them on any other ending).
        if (signal !== null) this.locksMaybeLeft = true;
        const stderr = err.text();
        if (flooded) return reject(this.flooded(sub, "messages", o.network === true));
        if (capped) return reject(cap.error());
        if (code === 0 && !timedOut) return resolve({ stdout: Buffer.concat(out), stderr });
        if (timedOut)
          return reject(
            new GitStoreError(
              "Timeout",
              o.network === true
                ? `git server ${displayUrl(this.opts.url)} timed out: git ${sub} took longer than ${totalMs} ms`
                : `git ${sub} on the cache of ${displayUrl(this.opts.url)} took longer than ${totalMs} ms (PORCH_PEPR_GIT_TOTAL_TIMEOUT_MS)`,
            ),
          );
        reject(this.failure(sub, stderr, Buffer.concat(out).toString("utf8"), o.network === true));
      });
      child.stdin.on("error", () => undefined);
      child.stdin.end(o.input ?? Buffer.alloc(0));
    });
  }

  /**
   * Checks the URL and the addresses its host resolves to, and pins them for curl, so git
   * connects to exactly what was checked.
   */
  private async pinnedAddresses(): Promise<ConfigEntry[]> {
    const { network } = this;
    const { url } = this.opts;
    assertUrlAllowed(url, network.policy);
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") return [];
    const addresses = await checkedAddresses(parsed, network, url);
    if (/^\[|^[0-9.]+$/.test(parsed.hostname)) return []; // a literal address: nothing to resolve
    const port = parsed.port || (parsed.protocol === "https:" ? "443" : "80");
    const list = addresses.map(a => (a.family === 6 ? `[${a.address}]` : a.address)).join(",");
    return [["http.curloptResolve", `${parsed.hostname}:${port}:${list}`]];
  }

  /** A git call ended for writing more than MESSAGE_MAX_BYTES of messages or unbounded output. */
  private flooded(sub: string, what: "messages" | "output", network: boolean): GitStoreError {
    const from = network ? ` (${displayUrl(this.opts.url)})` : "";
    const whose =
      network && what === "messages" ? ', the git server\'s "remote:" lines among them' : "";
    return new GitStoreError(
      "ContentTooLarge",
      `git ${sub}${from} was ended: it wrote more than ${MESSAGE_MAX_BYTES} bytes of ${what}${whose}, over the limit of a git call's ${what}`,
    );
  }

  private failure(sub: string, stderr: string, stdout: string, network: boolean): GitRunError {
    const output = `${stderr}\n${stdout}`;
    // From a network call only git's own lines: "remote:" lines quote the server's answer.
    const shown = network ? gitOwnLines(stderr) : output.trim().replace(/\s*\n\s*/g, "; ");
    const detail = scrubSecrets(shown || "no message", this.secrets);
    // git's own words only: a "remote:" line saying "Out of memory" is the server's.
    if (outOfMemory(network ? shown : stderr))
      return new GitRunError(
        "ContentTooLarge",
        outOfMemoryMessage(sub, displayUrl(this.opts.url), gitProcessMemoryOf(this.network)),
        output,
      );
    if (
      network &&
      /\b401\b|Authentication failed|could not read Username|terminal prompts disabled|\b403\b/.test(
        stderr,
      )
    ) {
      return new GitRunError(
        "Auth",
        `authentication to ${displayUrl(this.opts.url)} failed (git ${sub}); check the repository credentials`,
        output,
      );
    }
    if (network && /Operation too slow|Operation timed out|Connection timed out/i.test(stderr)) {
      return new GitRunError(
        "Timeout",
        `git server ${displayUrl(this.opts.url)} timed out: git ${sub}: ${detail}`,
        output,
      );
    }
    if (network && unavailableStderr(stderr)) {
      return new GitRunError(
        "Unavailable",
        `git server ${displayUrl(this.opts.url)} is unavailable: git ${sub}: ${detail}`,
        output,
      );
    }
    return new GitRunError(
      "Transport",
      `git ${sub} ${network ? `(${displayUrl(this.opts.url)}) ` : ""}failed: ${detail}`,
      output,
      stdout,
    );
  }
}

/** The git command `args` run ("fetch" of `-c k=v fetch …`), as messages name it. */
function subcommandOf(args: readonly string[]): string {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "-c") i++;
    else if (!args[i].startsWith("-")) return args[i];
  }
  return "git";
}

/**
 * Per ref, what `git push --porcelain` said of it: "<flag>\t<from>:<to>\t<summary>" lines, "!"
 * for a refused ref (every refusal the remote's doing: a lease that no longer holds, a ref that
 * exists, a hook). Only the refs asked for; the words cut short and scrubbed. Exported for tests.
 */
export function porcelainVerdicts(stdout: string, refs: string[], secrets: string[]): RefVerdicts {
  const wanted = new Set(refs);
  const verdicts: RefVerdicts = new Map();
  for (const line of stdout.split("\n")) {
    const [flag, spec, summary] = line.split("\t");
    if (flag === undefined || flag.length !== 1 || spec === undefined || summary === undefined)
      continue;
    const ref = spec.slice(spec.indexOf(":") + 1);
    if (!wanted.has(ref)) continue;
    verdicts.set(
      ref,
      flag === "!"
        ? { moved: true, says: scrubSecrets(summary.slice(0, 300), secrets) }
        : undefined,
    );
  }
  return verdicts;
}

/**
 * Whether git's stderr says the server could not be reached or went away mid-answer (curl's
 * words for a refused or reset connection, an empty or cut reply, a 502/503/504), as opposed to
 * a server that answered and refused. Exported for tests.
 */
export function unavailableStderr(stderr: string): boolean {
  return /Failed to connect|Could not connect|Connection refused|Connection reset|Empty reply from server|Recv failure|Send failure|transfer closed with|remote end hung up unexpectedly|unexpected disconnect|early EOF|returned error: 50[234]\b|HTTP 50[234]\b/i.test(
    stderr,
  );
}

/** git's own "fatal:" and "error:" lines of a network call, each cut short. Exported for tests. */
export function gitOwnLines(stderr: string): string {
  return stderr
    .split("\n")
    .map(l => l.trim())
    .filter(l => /^(fatal|error):/.test(l))
    .map(l => l.slice(0, 300))
    .join("; ");
}

function gitEnv(authHeader: string | undefined, network: GitNetwork): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, GIT_TERMINAL_PROMPT: "0", LC_ALL: "C" };
  for (const k of [
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_OBJECT_DIRECTORY",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG_COUNT",
  ])
    delete env[k];
  const allow = (yes: boolean) => (yes ? "always" : "never");
  const config: ConfigEntry[] = [
    ["credential.helper", ""],
    // Credentials go to the configured host only: a redirect is an error, not a new target.
    ["http.followRedirects", "false"],
    ...lowSpeedConfig(network.timeouts),
    ...cacheConfigWithin(gitProcessMemoryOf(network)),
    // No transport the URL policy does not know (ext::, ssh, git://, fd::).
    ["protocol.allow", "never"],
    ["protocol.https.allow", "always"],
    ["protocol.http.allow", allow(network.policy.http !== "none")],
    ["protocol.file.allow", allow(network.policy.file)],
  ];
  if (authHeader !== undefined) config.push(["http.extraHeader", `Authorization: ${authHeader}`]);
  return withConfig(env, config);
}

/**
 * curl's one low-speed rule stands for both the idle timeout and the low-speed one (silence is
 * below any limit): the shorter of the two windows, in whole seconds.
 */
function lowSpeedConfig(timeouts: GitTimeouts): ConfigEntry[] {
  const { limit, timeMs } = lowSpeedOf(timeouts);
  const seconds = Math.max(1, Math.ceil(Math.min(timeouts.idleMs, timeMs) / 1000));
  return [
    ["http.lowSpeedLimit", String(limit)],
    ["http.lowSpeedTime", String(seconds)],
  ];
}

/** The environment with more GIT_CONFIG_* entries appended. */
function withConfig(env: NodeJS.ProcessEnv, entries: ConfigEntry[]): NodeJS.ProcessEnv {
  const out = { ...env };
  let count = Number(out.GIT_CONFIG_COUNT ?? "0");
  for (const [key, value] of entries) {
    out[`GIT_CONFIG_KEY_${count}`] = key;
    out[`GIT_CONFIG_VALUE_${count}`] = value;
    count++;
  }
  out.GIT_CONFIG_COUNT = String(count);
  return out;
}

/**
 * The non-empty pieces of `buf` between `separator` bytes, each decoded on its own. Splitting
 * one decoded string instead gives V8 sliced strings that keep the whole output alive while
 * any piece is held: an object id kept from a repository's listing held the entire listing.
 */
export function splitDecoded(buf: Buffer, separator: number): string[] {
  const pieces: string[] = [];
  for (let start = 0; start < buf.length; ) {
    const at = buf.indexOf(separator, start);
    const end = at === -1 ? buf.length : at;
    if (end > start) pieces.push(buf.toString("utf8", start, end));
    start = end + 1;
  }
  return pieces;
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Lock files a git process ended by SIGKILL leaves behind (the fetch bound's, or a watcher killed
 * mid-fetch): while one is there every later ref update of that name fails ("cannot lock ref").
 * Every git call on a cache runs under that cache's lock (context.ts), so before a fetch no git
 * process of ours is using it and any lock file in it is stale.
 */
async function removeStaleLocks(gitdir: string): Promise<void> {
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name.endsWith(".lock")) await rm(path, { force: true });
    }
  };
  await walk(join(gitdir, "refs"));
  for (const name of ["packed-refs.lock", "shallow.lock", "HEAD.lock", "config.lock"])
    await rm(join(gitdir, name), { force: true });
}
