/**
 * Field managers of the controllers' server-side applies: each owns its part of a
 * PackageRevision. They partition ownership only; admission never
 * trusts them, since any client can name one (lib/validation/requester.ts).
 */
export const FIELD_MANAGERS = {
  repository: "repository-controller",
  core: "packagerev-controller",
  render: "packagerev-controller-render",
  kptfile: "packagerev-controller-kptfile",
  approval: "packagerev-controller-approval-policy",
} as const;
