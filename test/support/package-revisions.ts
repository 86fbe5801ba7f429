import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { getJson, kubectl, kubectlOk, mergePatchArgs } from "./kubectl";
import { eventually } from "./wait";

export interface PR {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
  };
  spec: {
    packageName: string;
    workspaceName: string;
    lifecycle: string;
    repository: string;
    source?: Record<string, unknown>;
  };
  status?: {
    revision?: number;
    creationSource?: string;
    conditions?: { type: string; status: string; reason: string; message: string }[];
    upstreamLock?: { git?: { ref?: string } };
    observedPrrResourceVersion?: string;
    publishedBy?: string;
  };
}

/** Any object's condition of `type` (a PackageRevision's, a Repository's, a variant's). */
export const condition = (obj: Pick<PR, "status"> | undefined, type: string) =>
  obj?.status?.conditions?.find(c => c.type === type);

export function createRevision(
  namespace: string,
  repo: string,
  pkg: string,
  workspace: string,
  source: unknown,
): string {
  const name = `${repo}.${pkg.replace(/\//g, ".")}.${workspace}`;
  kubectlOk(
    ["apply", "-n", namespace, "-f", "-"],
    JSON.stringify({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevision",
      metadata: { name },
      spec: {
        packageName: pkg,
        repository: repo,
        workspaceName: workspace,
        lifecycle: "Draft",
        source,
      },
    }),
  );
  return name;
}

export const files = (namespace: string, name: string): Record<string, string> =>
  getJson<{ spec: { resources: Record<string, string> } }>(
    "packagerevisionresources",
    name,
    namespace,
  )?.spec.resources ?? {};

/** One YAML file of a revision, parsed. */
export const yamlOf = (namespace: string, name: string, path: string) =>
  parse(files(namespace, name)[path] ?? "null");

/** Replaces the files of a revision, as a user does with kubectl (a JSON patch of the map). */
export function setFiles(namespace: string, name: string, resources: Record<string, string>) {
  return kubectl([
    "patch",
    "packagerevisionresources",
    name,
    "-n",
    namespace,
    "--type=json",
    "-p",
    JSON.stringify([{ op: "replace", path: "/spec/resources", value: resources }]),
  ]);
}

export function setLifecycle(namespace: string, name: string, lifecycle: string) {
  return kubectl(mergePatchArgs("packagerevision", name, namespace, { spec: { lifecycle } }));
}

/**
 * Waits until the revision's files are rendered (Rendered=True for the current files) and, for
 * a revision with a source, the source step has finished: it writes Rendered before the core
 * status (creationSource, locks, Ready), so Rendered=True alone may come a moment earlier.
 */
export function rendered(namespace: string, name: string): Promise<PR> {
  return eventually(
    `${name} rendered`,
    () => {
      const pr = getJson<PR>("packagerevision", name, namespace);
      const prr = getJson<{ metadata: { resourceVersion: string } }>(
        "packagerevisionresources",
        name,
        namespace,
      );
      const sourceDone = !pr?.spec?.source || pr.status?.creationSource !== undefined;
      return condition(pr, "Rendered")?.status === "True" &&
        pr?.status?.observedPrrResourceVersion === prr?.metadata.resourceVersion &&
        sourceDone
        ? pr
        : undefined;
    },
    60_000,
  );
}

export function lifecycleReached(namespace: string, name: string, lifecycle: string): Promise<PR> {
  return eventually(
    `${name} ${lifecycle}`,
    () => {
      const pr = getJson<PR>("packagerevision", name, namespace);
      return pr?.spec.lifecycle === lifecycle &&
        condition(pr, "Ready")?.status === "True" &&
        condition(pr, "Ready")?.message === `${lifecycle} in git`
        ? pr
        : undefined;
    },
    60_000,
  );
}

/** The controller process's id: another after a restart. */
export const watcherPid = (): number =>
  Number(
    readFileSync(
      join(process.env.PORCH_PEPR_E2E_STATE ?? "", "logs", "module-watcher.pid"),
      "utf8",
    ),
  );

/** Kills the controller process (the runner starts it again, as Kubernetes would a pod). */
export function killControllers(): void {
  process.kill(watcherPid(), "SIGKILL");
}

/** Proposes and publishes a revision, waiting for each step to reach git. */
export async function publish(namespace: string, name: string): Promise<PR> {
  setLifecycle(namespace, name, "Proposed");
  await lifecycleReached(namespace, name, "Proposed");
  setLifecycle(namespace, name, "Published");
  return lifecycleReached(namespace, name, "Published");
}

/** A new published revision `<repo>.<pkg>.<workspace>` of a package: copied, edited, published. */
export async function publishCopy(
  namespace: string,
  from: PR,
  workspace: string,
  newFiles: Record<string, string>,
): Promise<PR> {
  const { repository, packageName } = from.spec;
  const name = createRevision(namespace, repository, packageName, workspace, {
    copyFrom: { name: from.metadata.name },
  });
  await rendered(namespace, name);
  setFiles(namespace, name, newFiles);
  await rendered(namespace, name);
  return publish(namespace, name);
}
