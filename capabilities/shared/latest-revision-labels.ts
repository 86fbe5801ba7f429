import { PackageRevision, PackageRevisionKind } from "../../crd-types";
import { ignoreNotFound } from "../../lib/cluster/errors";
import { onlyIfUnchanged, refOf, type JsonPatchOperation } from "../../lib/cluster/port";
import { mapLimit } from "../../lib/controller/concurrency";
import { LATEST_REVISION_LABEL, latestRevisionLabels } from "../../lib/packages/latest-revision";
import type { OperatorContext } from "../context";

const CONCURRENCY = 8;

/**
 * Keeps one "true" latest-revision label per package (docs/package-revisions.md,
 * “Latest-revision label”).
 */
export async function updateLatestLabels(
  ctx: OperatorContext,
  revisions: PackageRevision[],
): Promise<void> {
  const labels = latestRevisionLabels(
    revisions.map(pr => ({
      name: pr.metadata?.name ?? "",
      repository: pr.spec?.repository ?? "",
      packageName: pr.spec?.packageName ?? "",
      lifecycle: pr.spec?.lifecycle,
      revision: pr.status?.revision,
      deleting: Boolean(pr.metadata?.deletionTimestamp),
    })),
  );
  await mapLimit(revisions, CONCURRENCY, async pr => {
    const value = labels.get(pr.metadata?.name ?? "");
    if (!value || pr.metadata?.labels?.[LATEST_REVISION_LABEL] === value) return;
    const patch: JsonPatchOperation[] = pr.metadata?.labels
      ? [{ op: "add", path: `/metadata/labels/${LATEST_REVISION_LABEL.replace("/", "~1")}`, value }]
      : [
          ...onlyIfUnchanged(pr),
          { op: "add", path: "/metadata/labels", value: { [LATEST_REVISION_LABEL]: value } },
        ];
    await ctx.cluster.patch(PackageRevisionKind, refOf(pr), { json: patch }).catch(ignoreNotFound);
  });
}

/** Recomputes the latest-revision label over the revisions of one PackageRevision's package. */
export async function refreshLatestLabels(
  ctx: OperatorContext,
  pr: PackageRevision,
): Promise<void> {
  const siblings = await ctx.cluster.list(PackageRevisionKind, {
    namespace: pr.metadata?.namespace,
    fields: {
      "spec.repository": pr.spec?.repository ?? "",
      "spec.packageName": pr.spec?.packageName ?? "",
    },
  });
  await updateLatestLabels(ctx, siblings);
}
