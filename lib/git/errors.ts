// Errors of the git content store. Every message passes through scrubSecrets so credentials never
// reach a status condition or a log line.

export type GitErrorCode =
  | "NotFound" // package revision or ref does not exist
  | "AlreadyExists" // workspace already used by a revision of the package
  | "InvalidArgument" // bad package/workspace name, missing Kptfile, ...
  | "InvalidTransition" // lifecycle change the store does not allow
  | "Conflict" // the remote moved and the bounded retries ran out, or a push was rejected
  | "Auth" // the server refused the credentials
  | "BranchMissing" // repository branch absent and createBranch not set
  | "Timeout" // the git server did not answer in time (connect, idle or total timeout)
  | "Unavailable" // the server could not be reached (refused, reset, closed mid-answer) or answered 502/503/504
  | "URLNotAllowed" // the URL or the address it resolves to is refused by the URL policy
  | "ContentTooLarge" // a file, package or fetch over a content limit (content-limits.ts)
  | "NotUTF8" // a package file that is not UTF-8 text (files are carried as text)
  | "TooManyRevisions" // a repository with more package revisions than the operator mirrors
  | "FetchMemoryBusy" // other fetches held the memory all fetches in flight may take (fetch-memory.ts)
  | "Transport"; // anything else from git / the network

export class GitStoreError extends Error {
  readonly code: GitErrorCode;
  constructor(code: GitErrorCode, message: string) {
    super(message);
    this.name = "GitStoreError";
    this.code = code;
  }
}

/** A ref update refused by the remote (not fast-forward, lease/expectation failed, tag exists). */
export class PushRejectedError extends GitStoreError {
  constructor(message: string) {
    super("Conflict", message);
    this.name = "PushRejectedError";
  }
}

export function isGitStoreError(err: unknown, code?: GitErrorCode): err is GitStoreError {
  return err instanceof GitStoreError && (code === undefined || err.code === code);
}

/**
 * The condition reason of a failed git operation: a timeout, a server that is down and a refused
 * URL by name (a tenant can tell a hung server from a dead one and from a refused address),
 * content the operator refuses to carry by name too, anything else `fallback`.
 */
const NAMED_FAILURES: GitErrorCode[] = [
  "Timeout",
  "Unavailable",
  "URLNotAllowed",
  "ContentTooLarge",
  "NotUTF8",
  "TooManyRevisions",
  "FetchMemoryBusy",
];

export function failureReason(err: unknown, fallback: string): string {
  for (const code of NAMED_FAILURES) if (isGitStoreError(err, code)) return code;
  return fallback;
}

/**
 * A failure another attempt may not see: the server was down, slow or cut the connection (or
 * git failed for a reason of its own). A controller retries these with backoff and never
 * records them as the object's final state, unlike a refused input (NotFound, InvalidArgument,
 * InvalidTransition, AlreadyExists, Auth, URLNotAllowed, ...).
 */
export function isTransientGitError(err: unknown): boolean {
  return (
    isGitStoreError(err, "Unavailable") ||
    isGitStoreError(err, "Timeout") ||
    isGitStoreError(err, "FetchMemoryBusy") ||
    isGitStoreError(err, "Transport")
  );
}

/**
 * Content the operator refuses to carry (a file, package or fetch over a limit; a file that is
 * not UTF-8): permanent until git changes, and said on the object that needed it.
 */
export function isRefusedContent(err: unknown): err is GitStoreError {
  return isGitStoreError(err, "ContentTooLarge") || isGitStoreError(err, "NotUTF8");
}

/** HTTP statuses of a server that is there but cannot serve now (a proxy without its backend). */
export const UNAVAILABLE_STATUSES = [502, 503, 504];

/** Removes URL userinfo (`https://user:pw@host` → `https://***@host`) and every known secret. */
export function scrubSecrets(text: string, secrets: readonly string[] = []): string {
  let out = text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, "$1***@");
  for (const secret of secrets) {
    if (secret.length >= 3) out = out.split(secret).join("***");
  }
  return out;
}

/** Removes userinfo from a URL for display. */
export function displayUrl(url: string): string {
  return scrubSecrets(url);
}
