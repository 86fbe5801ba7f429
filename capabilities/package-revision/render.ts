import { isDeepStrictEqual } from "node:util";
import { metricsCollector } from "pepr";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
} from "../../crd-types";
import {
  CATALOG_FAILURE_REASONS,
  capacityDecision,
  isCapacityReason,
  renderPackage,
  retryNote,
  type CapacityDecision,
} from "../../lib/fn";
import type { ReconcileResult } from "../../lib/controller/work-queue";
import { findCondition } from "../../lib/kubernetes/conditions";
import { isGitStoreError, type ContentStore } from "../../lib/git";
import { isPermanentError, PermanentError } from "../../lib/controller/permanent-error";
import {
  isPublished,
  type PackageConditions,
  type RenderVerdict,
  type RevisionOutcome,
} from "../../lib/package-revision";
import {
  assertSafeFileNames,
  assertWithinContentLimits,
  awaitsFunctionCatalog,
} from "../../lib/packages/content-readiness";
import { gitContentLimitsFromEnv } from "../../lib/git/content-limits";
import { keyOf } from "../../lib/controller/manager";
import { isConflict } from "../../lib/cluster/errors";
import type { OperatorContext } from "../context";
import { refOf } from "../../lib/cluster/port";
import { writeResources } from "../shared/package-resources";
import { gitKey } from "../shared/git-key";
import { rememberRenderStatus } from "../shared/render-statuses";
import { kptfileState } from "../../lib/packages/kptfile-state";
import { applyKptfileSpec, applyRenderStatus, MANAGER } from "./status";

export const PUSH_ON_RENDER_FAILURE = "porch.kpt.dev/push-on-render-failure";

type RenderStatus = NonNullable<PackageRevisionResources["status"]>["renderStatus"];

/** Served on /metrics as pepr_package_renders_total: what a change of a package costs. */
export const RENDERS_COUNTER = "package_renders_total";
metricsCollector.addCounter(
  RENDERS_COUNTER,
  "Package renders run: a new draft's source, and each change of a draft's files",
);

/**
 * A render of a package's files and what it leaves to keep: the rendered files when the render
 * succeeded (or the revision asks for push-on-render-failure), else none; the function results
 * for the PackageRevisionResources; how it ended, for the Rendered condition.
 */
export interface RenderedPackage {
  kept?: Record<string, string>;
  renderStatus: RenderStatus;
  verdict: RenderVerdict;
}

/**
 * Renders `files`. Rendered files git cannot take (unsafe names, over the git content limits)
 * throw PermanentError (UnsafeFileNames, ContentTooLarge): nothing of this render is kept. A render that fails for want of a function
 * is remembered with the catalog generation it ran under (see catalogRetry); one that fails for
 * want of shared capacity, with when to render again (capacityRequeue), and its message says so.
 */
export async function renderFiles(
  ctx: OperatorContext,
  pr: PackageRevision,
  files: Record<string, string>,
): Promise<RenderedPackage> {
  const generation = ctx.render.catalog.current().generation;
  metricsCollector.incCounter(RENDERS_COUNTER);
  const out = await renderPackage(files, {
    runtime: ctx.render.runtime,
    limits: ctx.render.limits,
  });
  const reason = out.error?.reason;
  if (reason && CATALOG_FAILURE_REASONS.includes(reason))
    ctx.render.catalogFailures.set(keyOf(pr), generation);
  else ctx.render.catalogFailures.delete(keyOf(pr));
  let message = out.error?.message ?? "render failed";
  if (isCapacityReason(reason)) {
    const nowMs = ctx.now().getTime();
    message = `${message}; ${retryNote(ctx.render.capacityRetries.failed(keyOf(pr), nowMs), nowMs)}`;
  } else ctx.render.capacityRetries.forget(keyOf(pr));
  const keep = out.ok || pr.metadata?.annotations?.[PUSH_ON_RENDER_FAILURE] === "true";
  if (keep) {
    assertSafeFileNames(out.files, "the rendered files");
    assertWithinContentLimits(
      out.files,
      "the rendered files",
      gitContentLimitsFromEnv(process.env),
    );
  }
  return {
    ...(keep && { kept: out.files }),
    renderStatus: { result: out.results, ...(out.error && { error: out.error.message }) },
    verdict: out.ok
      ? { ok: true, functions: out.steps.length }
      : { ok: false, reason: reason ?? "RenderFailed", message },
  };
}

/** The render result on the PackageRevisionResources, only if nobody edited it meanwhile. */
export async function writeRenderStatus(
  ctx: OperatorContext,
  prr: PackageRevisionResources,
  renderStatus: RenderStatus,
): Promise<PackageRevisionResources> {
  const written = await ctx.cluster.apply(
    PackageRevisionResourcesKind,
    {
      metadata: {
        name: prr.metadata?.name ?? "",
        namespace: prr.metadata?.namespace,
        resourceVersion: prr.metadata?.resourceVersion,
      },
      status: { renderStatus },
    },
    MANAGER.render,
    { status: true },
  );
  rememberRenderStatus(ctx, written);
  return written;
}

/**
 * The Kptfile's readiness gates and package metadata surface on the PackageRevision's spec,
 * where admission and the lifecycle controller check the gates: applied when they differ. Run
 * for the files a render keeps, before the render is stated; returns the Kptfile's conditions,
 * which the render's outcome states (status.packageConditions), or undefined when nothing was
 * kept.
 */
export async function syncKptfile(
  ctx: OperatorContext,
  pr: PackageRevision,
  files: Record<string, string> | undefined,
): Promise<PackageConditions | undefined> {
  if (!files) return undefined;
  const state = kptfileState(files.Kptfile);
  const spec = { readinessGates: state.readinessGates, packageMetadata: state.packageMetadata };
  const current = {
    readinessGates: pr.spec?.readinessGates ?? [],
    packageMetadata: pr.spec?.packageMetadata ?? {},
  };
  if (!isDeepStrictEqual(spec, current)) await applyKptfileSpec(ctx, pr, spec);
  return state.packageConditions;
}

/** Git refuses content only for what a retry cannot change (a missing Kptfile, a bad path). */
async function commitRendered(
  pr: PackageRevision,
  store: ContentStore,
  files: Record<string, string>,
  verdict: RenderVerdict,
): Promise<void> {
  try {
    const draft = await store.createDraftFromExisting(gitKey(pr));
    await draft.updateResources(
      files,
      verdict.ok ? "render" : "render (failed, pushed on request)",
    );
    await draft.closeDraft();
  } catch (error) {
    if (isGitStoreError(error, "InvalidArgument"))
      throw new PermanentError("InvalidContent", `cannot commit the files: ${error.message}`);
    throw error;
  }
}

/**
 * Whether the files may have changed since the last render. The watch's version of the
 * PackageRevisionResources answers without reading the (large) object: when it is the version
 * last rendered, nothing is new, and a newer edit brings its own event (the manager updates the
 * cache before it enqueues the revision). Not in the cache (not delivered yet): ask the API.
 */
function filesChanged(ctx: OperatorContext, pr: PackageRevision): boolean {
  const cached = ctx.caches.resources.named(refOf(pr))?.metadata?.resourceVersion;
  return cached === undefined || cached !== pr.status?.observedPrrResourceVersion;
}

/**
 * Whether the files are to be rendered again although they did not change: the last render
 * failed for want of a function (Rendered=False, ExecDenied or FunctionUnavailable) and the
 * catalog in use is not the one it failed under in this process. So a draft heals once the
 * administrator changes the catalog (the controller enqueues such revisions then), and once
 * after a restart, in case the catalog changed meanwhile.
 */
function catalogRetry(ctx: OperatorContext, pr: PackageRevision): boolean {
  if (!awaitsFunctionCatalog(findCondition(pr.status?.conditions, "Rendered"))) return false;
  return ctx.render.catalogFailures.get(keyOf(pr)) !== ctx.render.catalog.current().generation;
}

/**
 * Whether the files are to be rendered again although they did not change because the last
 * render failed for want of shared capacity (TooManyPods, QueueFull, PodBusy): when its backoff
 * is due, or at once when this process remembers no retry (a restart; the bounded memory of
 * retries dropped it), as catalogRetry does.
 */
function capacityRetry(ctx: OperatorContext, pr: PackageRevision): CapacityDecision {
  const rendered = findCondition(pr.status?.conditions, "Rendered");
  const pending = ctx.render.capacityRetries.get(keyOf(pr));
  return capacityDecision(rendered, pending, ctx.now().getTime());
}

/** After a render that failed for want of shared capacity is stated: come back when it is due. */
export function capacityRequeue(
  ctx: OperatorContext,
  pr: PackageRevision,
  verdict: RenderVerdict,
): ReconcileResult | undefined {
  if (verdict.ok || !isCapacityReason(verdict.reason)) return undefined;
  const due = ctx.render.capacityRetries.get(keyOf(pr))?.dueAtMs;
  return due === undefined ? undefined : { requeueAfterMs: Math.max(0, due - ctx.now().getTime()) };
}

/** Whether git still holds the revision as a Draft or Proposed (not published yet). */
async function unpublishedInGit(pr: PackageRevision, store: ContentStore): Promise<boolean> {
  const info = await store.findRevision(gitKey(pr));
  return info !== undefined && !isPublished(info.lifecycle);
}

/** What the render step did: a render to state, nothing new, or come back later. */
export type RenderOutcome =
  | Extract<RevisionOutcome, { kind: "unchanged" | "rendered" | "uncommittable" }>
  | { kind: "requeue"; requeueAfterMs: number };

const unchanged = { kind: "unchanged" } as const;

/**
 * Renders a Draft (or a Proposed revision, also one asked to be published and not published
 * yet) whose files changed since the last render (a user edit of its PackageRevisionResources,
 * a controller mutation; a new draft's source renders its own files). The rendered files go
 * back to the PackageRevisionResources with its resourceVersion as precondition (a newer edit
 * wins and is rendered next) and then to the draft branch. A failed render keeps the last good content in
 * git unless the revision asks for push-on-render-failure. Files git cannot take (unsafe names,
 * over the git content limits: the webhook may have been down) stop at Rendered=False and
 * Ready=False until they change. A render that failed for want of shared capacity runs again
 * when its backoff is due (capacityRetry); until then this step requeues for that moment.
 */
export async function reconcileRender(
  ctx: OperatorContext,
  pr: PackageRevision,
  store: ContentStore,
): Promise<RenderOutcome> {
  // Drafts, and proposals a PackageVariant updates in place (docs/package-variants.md,
  // “State machine”), are rendered.
  const lifecycle = pr.spec?.lifecycle;
  const publishing = lifecycle === "Published" && (pr.status?.revision ?? 0) === 0;
  if (lifecycle !== "Draft" && lifecycle !== "Proposed" && !publishing) return unchanged;
  if (pr.spec?.source && !pr.status?.creationSource) return unchanged;
  const capacity = capacityRetry(ctx, pr);
  const retry = catalogRetry(ctx, pr) || capacity.kind === "now";
  // A capacity retry not due yet: come back then (another event cleared the queue's timer).
  const idle =
    capacity.kind === "wait"
      ? { kind: "requeue" as const, requeueAfterMs: capacity.afterMs }
      : unchanged;
  if (!retry && !filesChanged(ctx, pr)) return idle;
  const prr = await ctx.cluster.get(PackageRevisionResourcesKind, refOf(pr));
  const version = prr?.metadata?.resourceVersion;
  if (!prr) return unchanged;
  // New files start the capacity backoff over.
  if (version !== pr.status?.observedPrrResourceVersion)
    ctx.render.capacityRetries.forget(keyOf(pr));
  else if (!retry) return idle;
  // So is a proposal asked to be published: an edit made just before must not be left out.
  if (publishing && !(await unpublishedInGit(pr, store))) return unchanged;
  // Every render slot taken, or this namespace's share of them: come back later rather than
  // hold a reconcile worker.
  const namespace = pr.metadata?.namespace ?? "";
  if (!ctx.render.slots.take(namespace))
    return { kind: "requeue", requeueAfterMs: ctx.render.requeueDelayMs };
  let written = prr;
  try {
    await applyRenderStatus(ctx, pr, { renderingPrrResourceVersion: version });
    assertSafeFileNames(prr.spec?.resources ?? {}, "spec.resources");
    // Admission refuses these too; an edit made while the webhook was down is refused here.
    assertWithinContentLimits(
      prr.spec?.resources ?? {},
      "spec.resources",
      gitContentLimitsFromEnv(process.env),
    );
    const { kept, renderStatus, verdict } = await renderFiles(ctx, pr, prr.spec?.resources ?? {});
    try {
      if (kept && !isDeepStrictEqual(kept, prr.spec?.resources))
        written = await writeResources(ctx, pr, kept, MANAGER.render, version);
      written = await writeRenderStatus(ctx, written, renderStatus);
    } catch (error) {
      // Edited while we rendered: this render is stale, render the newer content instead.
      if (isConflict(error)) return { kind: "requeue", requeueAfterMs: 0 };
      throw error;
    }
    if (kept) await commitRendered(pr, store, kept, verdict);
    const packageConditions = await syncKptfile(ctx, pr, kept);
    const observedPrrResourceVersion = written.metadata?.resourceVersion;
    return { kind: "rendered", verdict, observedPrrResourceVersion, packageConditions };
  } catch (error) {
    // Files git cannot take: the render stops for this version of the files and says why.
    if (!isPermanentError(error)) throw error;
    const { reason, message } = error;
    const observedPrrResourceVersion = written.metadata?.resourceVersion;
    return { kind: "uncommittable", reason, message, observedPrrResourceVersion };
  } finally {
    ctx.render.slots.release(namespace);
  }
}
