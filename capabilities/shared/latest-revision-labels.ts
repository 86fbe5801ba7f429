import { K8s } from "pepr";
import type { Operation } from "kubernetes-fluent-client";
import { PackageRevision } from "../../crd-types";
import { mapLimit } from "../../lib/controller/concurrency";
import { LATEST_REVISION_LABEL, latestRevisionLabels } from "../../lib/packages/latest-revision";
import { isNotFound } from "./api-errors";

const CONCURRENCY = 8;

/** Keeps one "true" latest-revision label per package (seed 002). */
export async function updateLatestLabels(revisions: PackageRevision[]): Promise<void> {
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
    const patch: Operation[] = pr.metadata?.labels
      ? [{ op: "add", path: `/metadata/labels/${LATEST_REVISION_LABEL.replace("/", "~1")}`, value }]
      : [{ op: "add", path: "/metadata/labels", value: { [LATEST_REVISION_LABEL]: value } }];
    await K8s(PackageRevision, { namespace: pr.metadata?.namespace, name: pr.metadata?.name })
      .Patch(patch)
      .catch(e => (isNotFound(e) ? undefined : Promise.reject(e)));
  });
}

/** Recomputes the latest-revision label over the revisions of one PackageRevision's package. */
export async function refreshLatestLabels(pr: PackageRevision): Promise<void> {
  const siblings = await K8s(PackageRevision)
    .InNamespace(pr.metadata?.namespace ?? "")
    .WithField("spec.repository", pr.spec?.repository ?? "")
    .WithField("spec.packageName", pr.spec?.packageName ?? "")
    .Get();
  await updateLatestLabels(siblings.items);
}
