/**
 * kubernetes-fluent-client throws the failed response ({status, statusText, data}), not an
 * Error. These helpers read it, and anything else that was thrown.
 */
interface FailedResponse {
  status?: number;
  statusText?: string;
  data?: { message?: string; reason?: string } | string;
}

export function httpStatus(error: unknown): number | undefined {
  const status = (error as FailedResponse | undefined)?.status;
  return typeof status === "number" ? status : undefined;
}

export const isNotFound = (error: unknown): boolean => httpStatus(error) === 404;
export const isConflict = (error: unknown): boolean => httpStatus(error) === 409;

/** One line for a condition message or a log: the API's own message when there is one. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  const response = error as FailedResponse | undefined;
  if (response && typeof response === "object" && "status" in response) {
    const data = response.data;
    const detail = typeof data === "string" ? data : data?.message;
    return `${response.status} ${response.statusText ?? ""}${detail ? `: ${detail}` : ""}`.trim();
  }
  return String(error);
}
