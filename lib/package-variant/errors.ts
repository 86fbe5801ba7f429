/**
 * A PackageVariant mutation that cannot be applied to the downstream package (missing package
 * context, bad Kptfile, invalid injection points). The caller reports the message as
 * Ready=False and retries on the next reconcile; it is never a crash.
 */
export class MutationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MutationError";
  }
}
