// How much git content the operator reads for a tenant: per file, per package (bytes and file
// count) and per fetch. A package's files become one PackageRevisionResources object, which
// goes through etcd (default request limit 1.5 MiB, --max-request-bytes): a package is read only
// when it can fit there, and a file is never read into memory when it could not
// (README “Security model”; docs/package-revisions.md, “Content limits and bytes”).
import { GitStoreError } from "./errors";
import { printableName } from "../packages/file-names";

export interface GitContentLimits {
  /** Largest file of a package. */
  maxFileBytes: number;
  /** Largest sum of a package's file sizes. */
  maxPackageBytes: number;
  /** Most files in one package. */
  maxPackageFiles: number;
  /** Most bytes one fetch may download (a pack, or any one HTTP answer of isomorphic-git). */
  maxFetchBytes: number;
  /** Most entries (files and directories, recursively) one tree listing may return. */
  maxTreeEntries: number;
  /** Largest object of a fetched pack, inflated (a delta: also the object it makes). */
  maxObjectBytes: number;
  /** Most bytes the objects of one fetched pack may take inflated, deltas' results included. */
  maxInflatedBytes: number;
  /** Most package revisions one Repository may have (each becomes two objects in the cluster). */
  maxRevisions: number;
  /**
   * Most ref lines one advertisement may list (a peeled tag's line counts), and with
   * REF_LINE_BYTES its bytes: read and held before anything else is known of the repository.
   */
  maxRefs: number;
  /** Largest commit or annotated tag object (its message included), and a sixteenth of a log's. */
  maxCommitBytes: number;
  /**
   * Most objects one fetched pack may hold: isomorphic-git's index keeps about 200 bytes of
   * heap per object, so a pack of millions of empty objects is small on the wire and large here.
   */
  maxPackObjects: number;
}

/**
 * 1 MiB of files leaves half a MiB of etcd's 1.5 MiB for what the object adds: JSON escaping
 * (a newline or quote takes two bytes), the file names twice (spec and managedFields) and
 * metadata. 1,000 files keep the names' share small. A fetch may bring the whole repository's
 * history, and isomorphic-git holds it in memory: 128 MiB is a quarter of a 512 MiB pod. A few
 * kilobytes of trees that name each other can list as a billion entries: 100,000 entries is far
 * above a real repository's directory and bounds the listing of a package or a Repository's
 * directory. isomorphic-git inflates each object of a fetched pack whole (about four copies at
 * once): 16 MiB per object keeps that near 64 MiB, far above a package file; 512 MiB for a whole
 * pack is 4x the fetch limit, a generous ratio for text, and bounds the time spent inflating.
 * Each package revision is a PackageRevision and a PackageRevisionResources in etcd
 * and in the watcher's caches (a few KiB each for a typical package): 10,000 per Repository is
 * several times a large real catalog (hundreds of packages, tens of revisions each) and keeps
 * one Repository's objects to tens of MiB of a 512 MiB pod, not the 200,000 a tag flood makes.
 * 50,000 advertised refs is five times that cap (an annotated tag takes two lines) and, at
 * REF_LINE_BYTES each, bounds an advertisement to 25 MB instead of the per-fetch limit.
 * A commit or tag is read whole and its message kept (listings memoise commits): a 120 MB
 * message on one tag took the watcher from 54 to 516 MB. Real messages are a few KiB (kpt's
 * annotations, a signature, the longest hand-written ones tens of KiB): 1 MiB is far above.
 */
export const DEFAULT_CONTENT_LIMITS: GitContentLimits = {
  maxFileBytes: 1024 * 1024,
  maxPackageBytes: 1024 * 1024,
  maxPackageFiles: 1000,
  maxFetchBytes: 128 * 1024 * 1024,
  maxTreeEntries: 100_000,
  maxObjectBytes: 16 * 1024 * 1024,
  maxInflatedBytes: 512 * 1024 * 1024,
  maxRevisions: 10_000,
  maxRefs: 50_000,
  maxCommitBytes: 1024 * 1024,
  maxPackObjects: 500_000,
};

/** Bytes an advertisement may take per ref line it may list (a long ref name included). */
export const REF_LINE_BYTES = 512;

/** The environment setting of each limit, named in every refusal. */
export const LIMIT_SETTINGS: Record<keyof GitContentLimits, string> = {
  maxFileBytes: "PORCH_PEPR_GIT_MAX_FILE_BYTES",
  maxPackageBytes: "PORCH_PEPR_GIT_MAX_PACKAGE_BYTES",
  maxPackageFiles: "PORCH_PEPR_GIT_MAX_PACKAGE_FILES",
  maxFetchBytes: "PORCH_PEPR_GIT_MAX_FETCH_BYTES",
  maxTreeEntries: "PORCH_PEPR_GIT_MAX_TREE_ENTRIES",
  maxObjectBytes: "PORCH_PEPR_GIT_MAX_OBJECT_BYTES",
  maxInflatedBytes: "PORCH_PEPR_GIT_MAX_INFLATED_BYTES",
  maxRevisions: "PORCH_PEPR_REPOSITORY_MAX_REVISIONS",
  maxRefs: "PORCH_PEPR_GIT_MAX_REFS",
  maxCommitBytes: "PORCH_PEPR_GIT_MAX_COMMIT_BYTES",
  maxPackObjects: "PORCH_PEPR_GIT_MAX_PACK_OBJECTS",
};

/**
 * A server advertising more refs than the limit, or more bytes than those refs may take: both
 * clients stop reading it there.
 */
export const tooManyRefs = (url: string, limits: GitContentLimits) =>
  new GitStoreError(
    "ContentTooLarge",
    `git server ${url} advertises more than ${limits.maxRefs} refs or ${limits.maxRefs * REF_LINE_BYTES} bytes of them, ${overLimit("maxRefs", limits)}`,
  );

/** A positive number from a setting, else `fallback`. */
export const positiveSetting = (value: string | undefined, fallback: number): number => {
  const n = Number(value);
  return value !== undefined && value.trim() !== "" && Number.isFinite(n) && n > 0 ? n : fallback;
};

export function gitContentLimitsFromEnv(env: NodeJS.ProcessEnv): GitContentLimits {
  const limits = { ...DEFAULT_CONTENT_LIMITS };
  for (const key of Object.keys(LIMIT_SETTINGS) as (keyof GitContentLimits)[])
    limits[key] = Math.floor(positiveSetting(env[LIMIT_SETTINGS[key]], limits[key]));
  return limits;
}

/** "over the per-file limit of 1048576 bytes (PORCH_PEPR_GIT_MAX_FILE_BYTES)" */
export function overLimit<K extends keyof GitContentLimits>(
  key: K,
  limits: Pick<GitContentLimits, K>,
): string {
  const what = {
    maxFileBytes: "per-file limit of %d bytes",
    maxPackageBytes: "per-package limit of %d bytes",
    maxPackageFiles: "limit of %d files per package",
    maxFetchBytes: "per-fetch limit of %d bytes",
    maxTreeEntries: "limit of %d entries per tree listing",
    maxObjectBytes: "per-object limit of %d bytes inflated",
    maxInflatedBytes: "per-fetch limit of %d bytes inflated",
    maxRevisions: "limit of %d package revisions per repository",
    maxRefs: "limit of %d refs advertised per fetch",
    maxCommitBytes: "limit of %d bytes per commit or tag",
    maxPackObjects: "limit of %d objects per fetched pack",
  }[key].replace("%d", String(limits[key]));
  return `over the ${what} (${LIMIT_SETTINGS[key]})`;
}

/** The most a client reads of one object, and the words that name that limit. */
export interface ObjectLimit {
  bytes: number;
  says: string;
}

/**
 * Blobs are files; a commit or tag has its own limit; a tree (one directory) is held to the
 * entries a listing may hold, at LISTING_BYTES_PER_ENTRY each.
 */
export function objectLimit(type: string, limits: GitContentLimits): ObjectLimit {
  if (type === "blob")
    return { bytes: limits.maxFileBytes, says: overLimit("maxFileBytes", limits) };
  if (type === "tree")
    return {
      bytes: limits.maxTreeEntries * LISTING_BYTES_PER_ENTRY,
      says: `over the limit of ${limits.maxTreeEntries * LISTING_BYTES_PER_ENTRY} bytes per tree (${LISTING_BYTES_PER_ENTRY} per entry of ${LIMIT_SETTINGS.maxTreeEntries})`,
    };
  return { bytes: limits.maxCommitBytes, says: overLimit("maxCommitBytes", limits) };
}

/** Most bytes a log of commits may take: sixteen of the largest commits. */
export const historyBytes = (limits: GitContentLimits): number => 16 * limits.maxCommitBytes;

/** A log of a branch's history over historyBytes. */
export const historyTooLarge = (oid: string, limits: GitContentLimits) =>
  new GitStoreError(
    "ContentTooLarge",
    `the history of commit ${oid} takes more than ${historyBytes(limits)} bytes, over sixteen times the ${overLimit("maxCommitBytes", limits).slice("over the ".length)}`,
  );

/** An object a client refused to read (its size is known before its body). */
export class ObjectTooLargeError extends GitStoreError {
  constructor(
    readonly oid: string,
    readonly size: number,
    limit: ObjectLimit,
  ) {
    super("ContentTooLarge", `git object ${oid} is ${size} bytes, ${limit.says}`);
  }
}

export const fileTooLarge = (path: string, size: number, limits: GitContentLimits) =>
  new GitStoreError(
    "ContentTooLarge",
    `file ${printableName(path)} is ${size} bytes, ${overLimit("maxFileBytes", limits)}`,
  );

/**
 * Bytes a tree listing may take per entry it may hold (paths included): a chain of nested
 * directories has few entries but paths that grow with its depth.
 */
export const LISTING_BYTES_PER_ENTRY = 256;

/** A tree whose recursive listing breaks the entry limit (or its bytes, LISTING_BYTES_PER_ENTRY). */
export const treeTooLarge = (oid: string, limits: GitContentLimits) =>
  new GitStoreError(
    "ContentTooLarge",
    `git tree ${oid} lists more than ${limits.maxTreeEntries} entries or ${limits.maxTreeEntries * LISTING_BYTES_PER_ENTRY} bytes, ${overLimit("maxTreeEntries", limits)}`,
  );

/** One tree object (a directory) with more entries than a whole listing may hold. */
export const treeTooManyEntries = (oid: string, limits: Pick<GitContentLimits, "maxTreeEntries">) =>
  new GitStoreError(
    "ContentTooLarge",
    `git tree ${oid} has more than ${limits.maxTreeEntries} entries, ${overLimit("maxTreeEntries", limits)}`,
  );

interface SizedFile {
  path: string;
  /** Unknown before reading for isomorphic-git (its packs hold no plain size). */
  size?: number;
}

/**
 * Every limit a package's files (known sizes) break, one sentence each: the file count, each
 * file over the per-file limit, the sum. Shared by the git store, admission and the render.
 */
export function packageLimitProblems(files: SizedFile[], limits: GitContentLimits): string[] {
  const problems: string[] = [];
  if (files.length > limits.maxPackageFiles)
    problems.push(`the package has ${files.length} files, ${overLimit("maxPackageFiles", limits)}`);
  let total = 0;
  for (const f of files) {
    if (f.size === undefined) continue;
    if (f.size > limits.maxFileBytes) problems.push(fileTooLarge(f.path, f.size, limits).message);
    total += f.size;
  }
  if (total > limits.maxPackageBytes)
    problems.push(
      `the package's files are ${total} bytes in all, ${overLimit("maxPackageBytes", limits)}`,
    );
  return problems;
}

/**
 * Throws ContentTooLarge when a package's files (known sizes) break a limit: checked before any
 * blob is read, and again with the read sizes.
 */
export function checkPackageFiles(files: SizedFile[], limits: GitContentLimits): void {
  const [first] = packageLimitProblems(files, limits);
  if (first !== undefined) throw new GitStoreError("ContentTooLarge", first);
}

/** A package's files as text, sized as git stores them (UTF-8 bytes). */
export const sizedFiles = (files: Record<string, string>): SizedFile[] =>
  Object.entries(files).map(([path, text]) => ({ path, size: Buffer.byteLength(text, "utf8") }));

/**
 * Why a repository with `count` package revisions is not mirrored, or undefined when it may be.
 * `what` says what was counted: refs, before any is read, or the revisions listed.
 */
export function revisionCountProblem(
  count: number,
  limits: GitContentLimits,
  what = "package revisions",
): string | undefined {
  if (count <= limits.maxRevisions) return undefined;
  return `the repository has ${count} ${what}, ${overLimit("maxRevisions", limits)}; nothing is mirrored from it until it has fewer, and revisions already mirrored are kept`;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * A file's text, exactly: encoding it again as UTF-8 gives back `bytes` (a BOM is kept). Bytes
 * that are not UTF-8 throw NotUTF8 naming the file: a PackageRevisionResources carries files as
 * JSON strings, which cannot hold them, and replacing them would corrupt the file silently.
 */
export function decodeFile(path: string, bytes: Uint8Array): string {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw new GitStoreError(
      "NotUTF8",
      `file ${printableName(path)} is not UTF-8 text; package files are carried as text, so binary files are not supported`,
    );
  }
}

/**
 * Both clients decode tree entry names as UTF-8, so a name that is not shows U+FFFD: refused,
 * as its file would be written back under another name. (A name that holds U+FFFD itself is
 * refused too; no tool writes one on purpose.)
 */
export function checkFileName(path: string): void {
  if (path.includes("\ufffd"))
    throw new GitStoreError(
      "NotUTF8",
      `file name ${printableName(path)} is not UTF-8; package files are carried under their names as text`,
    );
}
