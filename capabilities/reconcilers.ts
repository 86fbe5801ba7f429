import { selectReconcilers } from "../lib/controller/reconcilers";

/**
 * The controllers this process runs, read once from PORCH_PEPR_RECONCILERS (README, settings).
 * An unknown name is reported by startModule, which then refuses to start.
 */
export const reconcilers = selectReconcilers(process.env.PORCH_PEPR_RECONCILERS);

export function runsController(controller: string): boolean {
  return !reconcilers.ok || reconcilers.controllers.has(controller);
}
