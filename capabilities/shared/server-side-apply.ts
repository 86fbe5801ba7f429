import { fetch } from "kubernetes-fluent-client";
import type { GenericClass } from "kubernetes-fluent-client";
import { FetchMethods } from "kubernetes-fluent-client/dist/fluent/shared-types.js";
import { k8sCfg, pathBuilder } from "kubernetes-fluent-client/dist/fluent/utils.js";

interface Applied {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; [key: string]: unknown };
  [field: string]: unknown;
}

/**
 * Server-side apply under a field manager of our choosing. Pepr's K8s().Apply hard-codes the
 * manager "pepr"; seed 002 partitions PackageRevision status among three managers so that, say,
 * a lifecycle status write never clears render state. `subresource: "status"` applies to /status.
 */
export async function serverSideApply<T extends GenericClass>(
  model: T,
  object: Applied,
  fieldManager: string,
  subresource?: "status",
): Promise<InstanceType<T>> {
  const { opts, serverUrl } = await k8sCfg(FetchMethods.PATCH);
  const url = pathBuilder(serverUrl.toString(), model, {
    namespace: object.metadata.namespace,
    name: object.metadata.name,
  });
  if (subresource) url.pathname = `${url.pathname}/${subresource}`;
  url.searchParams.set("fieldManager", fieldManager);
  url.searchParams.set("force", "true");
  const headers = {
    ...(opts.headers as Record<string, string>),
    "Content-Type": "application/apply-patch+yaml",
  };
  const response = await fetch<InstanceType<T>>(url, {
    ...opts,
    method: "PATCH",
    headers,
    body: JSON.stringify(object),
  });
  if (!response.ok) throw response;
  return response.data;
}
