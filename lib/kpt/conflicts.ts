// Building MergeConflict entries with a one-line message fit for a status condition.
import type { FieldConflict } from "./merge3";
import type { ConflictReason, MergeConflict, ResourceRef } from "./types";

const MAX_VALUE_LENGTH = 80;

function show(value: unknown): string {
  if (value === undefined) return "(absent)";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_VALUE_LENGTH ? `${text.slice(0, MAX_VALUE_LENGTH - 3)}...` : text;
}

function subject(
  file: string,
  resource: ResourceRef | undefined,
  field: string | undefined,
): string {
  const object = resource
    ? ` ${resource.kind} ${resource.namespace ? `${resource.namespace}/` : ""}${resource.name}`
    : "";
  return `${file}${object}${field ? ` ${field}` : ""}`;
}

function describe(
  reason: ConflictReason,
  resolution: "local" | "upstream",
  local: unknown,
  upstream: unknown,
): string {
  switch (reason) {
    case "AtomicListReplaced":
      return `list without merge key changed on both sides; upstream list ${show(upstream)} replaced local list ${show(local)}`;
    case "DeletedUpstreamModifiedLocally":
      return resolution === "local"
        ? "deleted upstream but modified locally; local version kept"
        : "deleted upstream but modified locally; deleted, only fields added locally kept";
    case "DeletedLocallyModifiedUpstream":
      return resolution === "local"
        ? "deleted locally but modified upstream; it stays deleted"
        : "deleted locally but modified upstream; upstream's changed fields added back";
    case "NonKrmFileBothModified":
      return "changed locally and upstream; local version kept, upstream change not applied";
    case "LocalChangesDiscarded":
      return "local changes discarded; upstream version used";
    case "BothModified":
      return resolution === "upstream"
        ? `changed on both sides; upstream value ${show(upstream)} replaced local value ${show(local)}`
        : `changed on both sides; local value ${show(local)} kept, upstream value ${show(upstream)} not applied`;
  }
}

export function conflict(
  reason: ConflictReason,
  file: string,
  resolution: "local" | "upstream",
  details: {
    resource?: ResourceRef;
    field?: string;
    localValue?: unknown;
    upstreamValue?: unknown;
  } = {},
): MergeConflict {
  const { resource, field, localValue, upstreamValue } = details;
  return {
    reason,
    file,
    ...(resource && { resource }),
    ...(field && { field }),
    ...(localValue !== undefined && { localValue }),
    ...(upstreamValue !== undefined && { upstreamValue }),
    resolution,
    message: `${subject(file, resource, field)}: ${describe(reason, resolution, localValue, upstreamValue)}`,
  };
}

/** Turns field conflicts reported by merge3 into MergeConflicts of one object in one file. */
export function fieldConflictSink(
  out: MergeConflict[],
  file: string,
  resource: ResourceRef | undefined,
): (c: FieldConflict) => void {
  return c =>
    out.push(
      conflict(c.reason, file, c.resolution, {
        resource,
        field: c.field,
        localValue: c.localValue,
        upstreamValue: c.upstreamValue,
      }),
    );
}
