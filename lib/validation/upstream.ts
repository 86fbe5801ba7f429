import { invalid } from "./field";
import { parseRevision } from "./revision";

export interface UpstreamFields {
  repo?: string;
  package?: string;
  revision?: number | string;
  workspaceName?: string;
}

/** How the reference words a missing field: PackageVariant and PackageVariantSet differ. */
export type MissingFieldWording = (path: string) => string;
export const packageVariantWording: MissingFieldWording = p => `missing required field ${p}`;
export const packageVariantSetWording: MissingFieldWording = p => `${p} is a required field`;

/** Which upstream revision: exactly one of revision (number, v<N> or latest) and workspaceName. */
export function revisionProblems(upstream: UpstreamFields, path: string): string[] {
  const revision = parseRevision(upstream.revision);
  const hasWorkspace = Boolean(upstream.workspaceName);
  if (revision.kind === "invalid") {
    return [
      invalid(
        `${path}.revision`,
        upstream.revision,
        'must be a positive integer, "v<N>" or "latest"',
      ),
    ];
  }
  if (revision.kind === "unset" && !hasWorkspace) {
    return [`either ${path}.revision or ${path}.workspaceName must be specified`];
  }
  if (revision.kind !== "unset" && hasWorkspace) {
    return [`${path} may specify only one of \`revision\` and \`workspaceName\``];
  }
  return [];
}

export function upstreamProblems(
  upstream: UpstreamFields | undefined,
  path: string,
  missing: MissingFieldWording,
): string[] {
  if (!upstream) return [missing(path)];
  const problems: string[] = [];
  if (!upstream.repo) problems.push(missing(`${path}.repo`));
  if (!upstream.package) problems.push(missing(`${path}.package`));
  return [...problems, ...revisionProblems(upstream, path)];
}
