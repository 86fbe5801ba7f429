// The Kptfile's name and where one stands. A leaf module, so that lib/krm can use it without
// importing the parser (which is built on lib/krm).
export const KPTFILE = "Kptfile";

/** A Kptfile at any depth of a package: the root package's or a subpackage's. */
export function isKptfilePath(path: string): boolean {
  return path === KPTFILE || path.endsWith(`/${KPTFILE}`);
}
