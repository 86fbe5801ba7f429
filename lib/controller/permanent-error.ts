/**
 * An error that no retry can fix: the object's input has to change first (an unsafe file
 * name, content git cannot hold). The controller reports it as a condition with `reason` and
 * the work queue does not retry it; the next change of the object reconciles it again.
 */
export class PermanentError extends Error {
  constructor(
    /** A condition reason, e.g. UnsafeFileNames. */
    readonly reason: string,
    message: string,
  ) {
    super(message);
    this.name = "PermanentError";
  }
}

export const isPermanentError = (error: unknown): error is PermanentError =>
  error instanceof PermanentError;
