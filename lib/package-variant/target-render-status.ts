// What a PackageVariant's status.downstreamTargets keeps of each target's render status. The
// full status is the target's PackageRevisionResources' (up to 64 KiB of results, stderr and a
// 4 KiB error, lib/fn/results.ts); copied whole for every target, a tenant's failing pipeline
// would grow one variant toward the API server's object limit, after which no status write
// succeeds. So each target keeps at most TARGET_RENDER_STATUS_BOUNDS.perTargetBytes of it and
// all targets together totalBytes; what is cut is counted in an info result saying where the
// whole status is, as a render's own result cap does.
import type { PackageVariantStatus } from "../../crd-types";

type DownstreamTarget = NonNullable<PackageVariantStatus["downstreamTargets"]>[number];
type RenderStatus = NonNullable<DownstreamTarget["renderStatus"]>;
type FunctionItem = NonNullable<NonNullable<RenderStatus["result"]>["items"]>[number];
type ResultItem = NonNullable<FunctionItem["results"]>[number];

export const TARGET_RENDER_STATUS_BOUNDS = {
  /** One target: a failing function's error, stderr tail and first results fit. */
  perTargetBytes: 16 * 1024,
  /** All targets: far below the 1.5 MiB object limit, with room for the spec. */
  totalBytes: 64 * 1024,
  /** The error, which joins every error result (up to 4,096 characters). */
  errorChars: 1024,
};

/** Room kept in each cut status for the note that says what was cut. */
const NOTE_BYTES = 1024;

const sizeOf = (value: unknown): number => Buffer.byteLength(JSON.stringify(value) ?? "");

/**
 * A copy as the API stores it (JSON), so a status built from it compares equal, prototype
 * included, to the one read back (structuredClone makes its objects in the runtime's own realm).
 */
const copyOf = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

interface Cut {
  results: number;
  functions: number;
  stderr: number;
  error: boolean;
}

/**
 * The targets with their render statuses within the bounds: each cut to its share of what is
 * left, and once too little is left, the rest keep only their names. Pure and deterministic, so
 * an unchanged input writes an unchanged status.
 */
export function boundedDownstreamTargets(
  targets: readonly DownstreamTarget[],
  bounds = TARGET_RENDER_STATUS_BOUNDS,
): DownstreamTarget[] {
  let left = bounds.totalBytes;
  let uncopied = 0;
  let lastCopied: RenderStatus | undefined;
  const out = targets.map(({ name, renderStatus }): DownstreamTarget => {
    if (renderStatus === undefined) return { name };
    const room = Math.min(bounds.perTargetBytes, left);
    if (room < 2 * NOTE_BYTES) {
      uncopied++;
      return { name };
    }
    const kept = boundedRenderStatus(renderStatus, room - NOTE_BYTES, bounds.errorChars, name);
    left -= sizeOf(kept);
    lastCopied = kept;
    return { name, renderStatus: kept };
  });
  if (uncopied > 0 && lastCopied !== undefined)
    notedIn(lastCopied).push(
      info(
        `the render status of ${uncopied} more targets was not copied: a PackageVariant keeps at most ${bounds.totalBytes / 1024} KiB of its targets' render statuses; each target's PackageRevisionResources has its own`,
      ),
    );
  return out;
}

/** `status` within `room` bytes (plus the note), a copy; the input is left as it was. */
function boundedRenderStatus(
  status: RenderStatus,
  room: number,
  errorChars: number,
  target: string,
): RenderStatus {
  if (sizeOf(status) <= room) return copyOf(status);
  const cut: Cut = { results: 0, functions: 0, stderr: 0, error: false };
  const kept: RenderStatus = {};
  if (status.error !== undefined) {
    kept.error = status.error;
    if (status.error.length > errorChars) {
      cut.error = true;
      kept.error = `${status.error.slice(0, errorChars)}… (${status.error.length - errorChars} characters dropped)`;
    }
  }
  if (status.result !== undefined) {
    const { items = [], ...head } = status.result;
    const result = { ...copyOf(head), items: [] as FunctionItem[] };
    kept.result = result;
    for (const item of items) {
      const { results = [], stderr, ...rest } = item;
      const fn: FunctionItem = copyOf(rest);
      if (sizeOf(kept) + sizeOf(fn) > room) {
        cut.functions++;
        cut.results += results.length;
        continue;
      }
      result.items.push(fn);
      if (stderr !== undefined) {
        fn.stderr = stderr;
        if (sizeOf(kept) > room) {
          delete fn.stderr;
          cut.stderr++;
        }
      }
      for (const r of results) {
        (fn.results ??= []).push(copyOf(r));
        if (sizeOf(kept) <= room) continue;
        fn.results.pop();
        cut.results++;
      }
      if (fn.results?.length === 0) delete fn.results;
    }
  }
  const { results, functions, stderr, error } = cut;
  notedIn(kept).push(
    info(
      `render status cut: ${results} result items, ${functions} functions and ${stderr} stderr texts were not copied${error ? " and the error was shortened" : ""}: a PackageVariant keeps at most ${Math.floor((room + NOTE_BYTES) / 1024)} KiB of a target's render status; PackageRevisionResources "${target}" has it whole`,
    ),
  );
  return kept;
}

/** Where a note goes: the last function's results, or an entry of its own when none is kept. */
function notedIn(status: RenderStatus): ResultItem[] {
  const result = (status.result ??= {});
  const items = (result.items ??= []);
  if (items.length === 0) items.push({});
  return (items[items.length - 1].results ??= []);
}

const info = (message: string): ResultItem => ({ message, severity: "info" });
