import { ApiError } from "../../../lib/cluster/errors";

/**
 * What the real adapter (capabilities/shared/cluster/fluent-client.ts) does around a request,
 * so the fake's callers see the same answers: names refused before any request, and the API
 * errors it turns into results.
 */

/** A name that is not one path segment never reaches the API. */
export function checkName(name: string): void {
  if (name === "" || name === "." || name === "..")
    throw new Error(`invalid object name ${JSON.stringify(name)}`);
}

/** 404 on get/delete and a tolerated AlreadyExists are answers, not errors. */
export function tolerate<R>(error: unknown, status: number, value: R, reason?: string): R {
  if (error instanceof ApiError && error.status === status && (!reason || error.reason === reason))
    return value;
  throw error;
}
