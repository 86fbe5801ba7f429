/**
 * What the API answered when it did not succeed. Every `Cluster` adapter throws these, so
 * callers branch on `status`/`reason` without knowing the client library.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    /** The API's machine-readable reason (NotFound, AlreadyExists, Conflict, ...). */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

export const httpStatus = (error: unknown): number | undefined =>
  error instanceof ApiError ? error.status : undefined;

export const isNotFound = (error: unknown): boolean => httpStatus(error) === 404;
export const isConflict = (error: unknown): boolean => httpStatus(error) === 409;
export const isAlreadyExists = (error: unknown): boolean =>
  error instanceof ApiError && error.status === 409 && error.reason === "AlreadyExists";

/** For `.catch`: a 404 is nothing to do (the object is gone), anything else is rethrown. */
export function ignoreNotFound(error: unknown): undefined {
  if (isNotFound(error)) return undefined;
  throw error;
}
