import { kubectlOk } from "./kubectl";

/** A Repository object with labels (its git side is not used by the test that creates it). */
export function createRepository(
  namespace: string,
  name: string,
  labels: Record<string, string> = {},
): void {
  kubectlOk(
    ["apply", "-n", namespace, "-f", "-"],
    JSON.stringify({
      apiVersion: "config.porch.kpt.dev/v1alpha1",
      kind: "Repository",
      metadata: { name, labels },
      spec: { git: { repo: `http://127.0.0.1:9/${name}.git` } },
    }),
  );
}

/** A published PackageRevision object, status written through the status subresource. */
export function createPublishedRevision(
  namespace: string,
  repo: string,
  pkg: string,
  revision: number,
): string {
  const name = `${repo}.${pkg.replace(/\//g, ".")}.v${revision}`;
  kubectlOk(
    ["apply", "-n", namespace, "-f", "-"],
    JSON.stringify({
      apiVersion: "porch.kpt.dev/v1alpha2",
      kind: "PackageRevision",
      metadata: { name },
      spec: {
        packageName: pkg,
        repository: repo,
        workspaceName: `v${revision}`,
        lifecycle: "Published",
        source: { init: {} },
      },
    }),
  );
  kubectlOk([
    "patch",
    "packagerevision",
    name,
    "-n",
    namespace,
    "--subresource=status",
    "--type=merge",
    "-p",
    JSON.stringify({ status: { revision } }),
  ]);
  return name;
}
