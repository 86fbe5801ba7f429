import { isDeepStrictEqual } from "node:util";
import {
  PackageRevision,
  PackageRevisionResources,
  PackageRevisionResourcesKind,
} from "../../crd-types";
import type { ReconcileResult } from "../../lib/controller/work-queue";
import { renderPackage, RenderOutput } from "../../lib/fn";
import { isGitStoreError, type ContentStore } from "../../lib/git";
import { isPermanentError, PermanentError } from "../../lib/controller/permanent-error";
import { assertSafeFileNames } from "../../lib/packages/content-readiness";
import { isConflict } from "../../lib/cluster/errors";
import { cluster } from "../shared/cluster";
import { writeResources } from "../shared/package-resources";
import { functionRuntime, renderConfig } from "./config";
import { gitKey } from "../shared/git-key";
import { kptfileState } from "../../lib/packages/kptfile-state";
import {
  applyCoreStatus,
  applyKptfileSpec,
  applyKptfileStatus,
  applyRenderStatus,
  MANAGER,
} from "./status";

export const PUSH_ON_RENDER_FAILURE = "porch.kpt.dev/push-on-render-failure";

let rendering = 0;

async function getResources(pr: PackageRevision): Promise<PackageRevisionResources | undefined> {
  return cluster.get(PackageRevisionResourcesKind, {
    namespace: pr.metadata?.namespace,
    name: pr.metadata?.name ?? "",
  });
}

/** The render result on the PackageRevisionResources, only if nobody edited it meanwhile. */
async function writeRenderStatus(
  prr: PackageRevisionResources,
  out: RenderOutput,
): Promise<PackageRevisionResources> {
  return cluster.apply(
    PackageRevisionResourcesKind,
    {
      metadata: {
        name: prr.metadata?.name ?? "",
        namespace: prr.metadata?.namespace,
        resourceVersion: prr.metadata?.resourceVersion,
      },
      status: {
        renderStatus: { result: out.results, ...(out.error && { error: out.error.message }) },
      },
    },
    MANAGER.render,
    { status: true },
  );
}

/**
 * The Kptfile's readiness gates and package metadata (spec) and its conditions (status) surface
 * on the PackageRevision, where admission and the lifecycle controller check the gates.
 */
async function syncKptfile(pr: PackageRevision, files: Record<string, string>): Promise<void> {
  const state = kptfileState(files.Kptfile);
  const spec = { readinessGates: state.readinessGates, packageMetadata: state.packageMetadata };
  const current = {
    readinessGates: pr.spec?.readinessGates ?? [],
    packageMetadata: pr.spec?.packageMetadata ?? {},
  };
  if (!isDeepStrictEqual(spec, current)) await applyKptfileSpec(pr, spec);
  if (!isDeepStrictEqual(state.packageConditions, pr.status?.packageConditions ?? []))
    await applyKptfileStatus(pr, state.packageConditions);
}

/** Files git cannot take: the render stops for this version of the files and says why. */
async function reportUncommittable(
  pr: PackageRevision,
  version: string | undefined,
  error: PermanentError,
): Promise<void> {
  const condition = { status: "False" as const, reason: error.reason, message: error.message };
  await applyRenderStatus(
    pr,
    { observedPrrResourceVersion: version },
    {
      type: "Rendered",
      ...condition,
    },
  );
  await applyCoreStatus(pr, {}, [{ type: "Ready", ...condition }]);
}

/** Git refuses content only for what a retry cannot change (a missing Kptfile, a bad path). */
async function commitRendered(
  pr: PackageRevision,
  store: ContentStore,
  out: RenderOutput,
): Promise<void> {
  try {
    const draft = await store.createDraftFromExisting(gitKey(pr));
    await draft.updateResources(
      out.files,
      out.ok ? "render" : "render (failed, pushed on request)",
    );
    await draft.closeDraft();
  } catch (error) {
    if (isGitStoreError(error, "InvalidArgument"))
      throw new PermanentError("InvalidContent", `cannot commit the files: ${error.message}`);
    throw error;
  }
}

/**
 * Renders a Draft (or a Proposed revision) whose files changed since the last render (a user edit of its
 * PackageRevisionResources, a source execution, a controller mutation). The rendered files go
 * back to the PackageRevisionResources with its resourceVersion as precondition (a newer edit
 * wins and is rendered next) and then to the draft branch. A failed render keeps the last good
 * content in git unless the revision asks for push-on-render-failure. Files git cannot take
 * (unsafe names: the webhook may have been down) stop at Rendered=False and Ready=False until
 * they change.
 */
export async function reconcileRender(
  pr: PackageRevision,
  store: ContentStore,
): Promise<ReconcileResult | void> {
  // Drafts, and proposals a PackageVariant updates in place (seed 003), are rendered.
  if (pr.spec?.lifecycle !== "Draft" && pr.spec?.lifecycle !== "Proposed") return;
  if (pr.spec.source && !pr.status?.creationSource) return;
  const prr = await getResources(pr);
  const version = prr?.metadata?.resourceVersion;
  if (!prr || version === pr.status?.observedPrrResourceVersion) return;
  if (renderConfig.maxConcurrentRenders > 0 && rendering >= renderConfig.maxConcurrentRenders) {
    return { requeueAfterMs: renderConfig.requeueDelayMs };
  }
  rendering++;
  let written = prr;
  try {
    await applyRenderStatus(pr, { renderingPrrResourceVersion: version });
    assertSafeFileNames(prr.spec?.resources ?? {}, "spec.resources");
    const out = await renderPackage(prr.spec?.resources ?? {}, { runtime: functionRuntime });
    const keep = out.ok || pr.metadata?.annotations?.[PUSH_ON_RENDER_FAILURE] === "true";
    if (keep) assertSafeFileNames(out.files, "the rendered files");
    try {
      if (keep && !isDeepStrictEqual(out.files, prr.spec?.resources))
        written = await writeResources(pr, out.files, MANAGER.render, version);
      written = await writeRenderStatus(written, out);
    } catch (error) {
      // Edited while we rendered: this render is stale, render the newer content instead.
      if (isConflict(error)) return { requeueAfterMs: 0 };
      throw error;
    }
    if (keep) {
      await commitRendered(pr, store, out);
      await syncKptfile(pr, out.files);
    }
    await applyRenderStatus(
      pr,
      { observedPrrResourceVersion: written.metadata?.resourceVersion },
      out.ok
        ? {
            type: "Rendered",
            status: "True",
            reason: "Rendered",
            message: `rendered ${out.steps.length} function(s)`,
          }
        : {
            type: "Rendered",
            status: "False",
            reason: out.error?.reason ?? "RenderFailed",
            message: out.error?.message ?? "render failed",
          },
    );
  } catch (error) {
    if (!isPermanentError(error)) throw error;
    await reportUncommittable(pr, written.metadata?.resourceVersion, error);
  } finally {
    rendering--;
  }
}
