/** The PackageRevision object name Porch uses: `edge01.apps.nginx.packagevariant-2`. */
export function packageRevisionObjectName(
  repo: string,
  packageName: string,
  workspace: string,
): string {
  const dotted = packageName
    .split("/")
    .filter(part => part !== "")
    .join(".");
  return `${repo}.${dotted}.${workspace}`;
}
