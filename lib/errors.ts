// Framework-free error helpers shared by lib/ and the capabilities.

/** The text of anything thrown: an Error's message, else the value as a string. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
