// What one step of the PackageRevision controller did, and the status that states it: the pure
// half of capabilities/package-revision (docs/package-revisions.md, “Reconcile steps”). Steps return an
// outcome; revisionConditions and revisionFields say what each field manager applies for it.
import type { PackageRevisionStatus } from "../../crd-types";
import { isPermanentError } from "../controller/permanent-error";
import { errorMessage } from "../errors";
import { failureReason, isTransientGitError } from "../git/errors";
import type { Lifecycle } from "../git/types";
import {
  readyInGit,
  type CauseReason,
  type ConditionText,
  type ManagedConditions,
  type RevisionCondition,
  type UncommittableReason,
} from "./conditions";

type Status = PackageRevisionStatus;

/** The status fields the core manager owns (its conditions aside). */
export type CoreFields = Pick<
  Status,
  | "observedGeneration"
  | "revision"
  | "publishedBy"
  | "publishedAt"
  | "upstreamLock"
  | "selfLock"
  | "creationSource"
>;

/**
 * The status fields of the render half (its condition aside): the versions being / last
 * rendered, and the conditions of the rendered Kptfile (part of what the render made).
 */
export type RenderFields = Pick<
  Status,
  "renderingPrrResourceVersion" | "observedPrrResourceVersion" | "packageConditions"
>;

/** The Kptfile's status.conditions, as status.packageConditions states them. */
export type PackageConditions = NonNullable<Status["packageConditions"]>;

export interface ManagedFields {
  core?: Partial<CoreFields>;
  render?: Partial<RenderFields>;
}

/** How a render ended: the functions it ran, or why it failed. */
export type RenderVerdict =
  | { ok: true; functions: number }
  | { ok: false; reason: CauseReason; message: string };

/** What a step did that the status states. */
export type RevisionOutcome =
  /** Nothing new to state. */
  | { kind: "unchanged" }
  /** The revision cannot go on until something changes (or a retry succeeds): Ready=False. */
  | { kind: "failed"; reason: CauseReason; message: string }
  /** The source made no draft: neither Ready nor Rendered, for the same reason. */
  | { kind: "sourceFailed"; reason: CauseReason; message: string }
  /**
   * The files of `observedPrrResourceVersion` were rendered (and committed when kept, then with
   * their Kptfile's conditions).
   */
  | {
      kind: "rendered";
      verdict: RenderVerdict;
      observedPrrResourceVersion?: string;
      packageConditions?: PackageConditions;
    }
  /** Files git cannot take: not Rendered and not Ready until they change. */
  | {
      kind: "uncommittable";
      reason: UncommittableReason | CauseReason;
      message: string;
      observedPrrResourceVersion?: string;
    }
  /** The source's draft is in git, rendered, at `lifecycle` asked for. */
  | {
      kind: "created";
      lifecycle: Lifecycle;
      verdict: RenderVerdict;
      observedPrrResourceVersion?: string;
      /** The conditions of the draft's Kptfile. */
      packageConditions?: PackageConditions;
      fields: Required<Pick<CoreFields, "creationSource" | "revision">> &
        Pick<CoreFields, "selfLock" | "upstreamLock">;
      /** Set for an upgrade: the fields both sides changed (upstream won). */
      conflicts?: string[];
    }
  /** Git holds the revision at `lifecycle` (moved there now or before). */
  | {
      kind: "inGit";
      lifecycle: Lifecycle;
      /** The Rendered condition the revision has: files git could not take keep it not Ready. */
      rendered: ConditionText | undefined;
      fields: Partial<CoreFields> & { revision: number };
    };

export function renderedCondition(verdict: RenderVerdict): RevisionCondition<"Rendered"> {
  return verdict.ok
    ? {
        type: "Rendered",
        status: "True",
        reason: "Rendered",
        message: `rendered ${verdict.functions} function(s)`,
      }
    : { type: "Rendered", status: "False", reason: verdict.reason, message: verdict.message };
}

/**
 * Every field both sides changed is listed, though upstream won (docs/package-revisions.md,
 * “Upgrade conflicts”).
 */
function upgradedCondition(conflicts: string[]): RevisionCondition<"Upgraded"> {
  if (conflicts.length === 0)
    return {
      type: "Upgraded",
      status: "True",
      reason: "Merged",
      message: "upgraded without conflicts",
    };
  return {
    type: "Upgraded",
    status: "True",
    reason: "MergedWithConflicts",
    message: `${conflicts.length} conflict(s) resolved as kpt does: ${conflicts.join("; ")}`,
  };
}

const notReady = (reason: CauseReason, message: string): RevisionCondition<"Ready"> => ({
  type: "Ready",
  status: "False",
  reason,
  message,
});

/** The conditions each field manager states for `outcome` (the only place they are chosen). */
export function revisionConditions(outcome: RevisionOutcome): ManagedConditions {
  switch (outcome.kind) {
    case "unchanged":
      return {};
    case "failed":
      return { core: [notReady(outcome.reason, outcome.message)] };
    case "sourceFailed":
    case "uncommittable": {
      const { reason, message } = outcome;
      return {
        render: [{ type: "Rendered", status: "False", reason, message }],
        core: [notReady(reason, message)],
      };
    }
    case "rendered":
      return { render: [renderedCondition(outcome.verdict)] };
    case "created": {
      const rendered = renderedCondition(outcome.verdict);
      // Ready as the lifecycle step would state it for a draft, so it has nothing to write.
      const ready =
        outcome.lifecycle === "Draft"
          ? readyInGit("Draft", rendered)
          : notReady("Pending", `awaiting ${outcome.lifecycle}`);
      const upgraded = outcome.conflicts ? [upgradedCondition(outcome.conflicts)] : [];
      return { render: [rendered], core: [ready, ...upgraded] };
    }
    case "inGit":
      return { core: [readyInGit(outcome.lifecycle, outcome.rendered)] };
    default: {
      const unknown: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * What a render made, as the render half states it: the version rendered, and the Kptfile's
 * conditions when the render kept files (none kept: the conditions stay as they are).
 */
function renderResult(
  outcome: Extract<RevisionOutcome, { kind: "rendered" | "created" }>,
): Partial<RenderFields> {
  const { observedPrrResourceVersion, packageConditions } = outcome;
  return { observedPrrResourceVersion, ...(packageConditions && { packageConditions }) };
}

/** The status fields (conditions aside) each field manager states for `outcome`. */
export function revisionFields(outcome: RevisionOutcome): ManagedFields {
  switch (outcome.kind) {
    case "unchanged":
      return {};
    case "failed":
    case "sourceFailed":
      return { core: {} };
    case "rendered":
      return { render: renderResult(outcome) };
    case "uncommittable":
      return {
        render: { observedPrrResourceVersion: outcome.observedPrrResourceVersion },
        core: {},
      };
    case "created":
      return { render: renderResult(outcome), core: outcome.fields };
    case "inGit":
      return { core: outcome.fields.revision > 0 ? outcome.fields : {} };
    default: {
      const unknown: never = outcome;
      throw new Error(`unknown outcome ${JSON.stringify(unknown)}`);
    }
  }
}

/**
 * Whether the status already states an inGit outcome: the same revision and Ready (status and
 * reason), for this generation. Then the lifecycle step writes nothing.
 */
export function alreadyStated(
  current: { generation?: number; status?: Status },
  outcome: Extract<RevisionOutcome, { kind: "inGit" }>,
): boolean {
  const ready = readyInGit(outcome.lifecycle, outcome.rendered);
  const stated = current.status?.conditions?.find(c => c.type === "Ready");
  return (
    outcome.fields.revision === current.status?.revision &&
    stated?.status === ready.status &&
    stated?.reason === ready.reason &&
    current.status?.observedGeneration === current.generation
  );
}

/**
 * The outcome of a failure the reconcile threw: no retry can fix it (PermanentError, not retried
 * by the queue), or a git server down or cut off mid-write (retried with backoff; Ready says so
 * meanwhile, and the retry that succeeds states Ready again). Undefined for anything else.
 */
export function failureOutcome(error: unknown): RevisionOutcome | undefined {
  if (isPermanentError(error))
    return { kind: "failed", reason: error.reason, message: error.message };
  if (isTransientGitError(error))
    return { kind: "failed", reason: failureReason(error, "Failed"), message: errorMessage(error) };
  return undefined;
}
