// Serialises the operations on one repository cache inside this process: every store instance
// using the same cache folder shares one queue, so two writers never interleave fetch/commit/push.
const tails = new Map<string, Promise<unknown>>();

export async function withLock<T>(key: string, op: () => Promise<T>): Promise<T> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release!: () => void;
  const current = new Promise<void>(resolve => (release = resolve));
  const tail = previous.then(() => current);
  tails.set(key, tail);
  try {
    await previous;
    return await op();
  } finally {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  }
}

/** Whether an operation holds or waits for the lock of `key` now. */
export const isLocked = (key: string): boolean => tails.has(key);
