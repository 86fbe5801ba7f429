/**
 * Field managers of the controllers' server-side applies (seed 002). Admission recognises the
 * controllers' own writes by them: mirroring a Published revision from git is not a user
 * creating one, and refreshing the files of a published revision is not an edit.
 */
export const FIELD_MANAGERS = {
  repository: "repository-controller",
  core: "packagerev-controller",
  render: "packagerev-controller-render",
  kptfile: "packagerev-controller-kptfile",
} as const;

export const isControllerFieldManager = (manager: string | undefined): boolean =>
  Object.values(FIELD_MANAGERS).includes(manager as never);
