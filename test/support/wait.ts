/**
 * Polls until `probe` returns a value that is not undefined, and returns it. On timeout the
 * error carries the last value seen (or the last error), which is what a failing test needs.
 */
export async function eventually<T>(
  what: string,
  probe: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
  intervalMs = 250,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
      last = undefined;
    } catch (error) {
      last = error;
    }
    await new Promise(r => setTimeout(r, intervalMs));
  }
  throw new Error(
    `timed out after ${timeoutMs / 1000}s waiting for ${what}${last ? `: ${String(last)}` : ""}`,
  );
}
