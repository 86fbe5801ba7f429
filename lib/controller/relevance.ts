/** What of an object the projection reads. */
interface Reconciled {
  metadata?: {
    uid?: string;
    generation?: number;
    deletionTimestamp?: unknown;
    finalizers?: string[];
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    ownerReferences?: unknown[];
  };
}

/**
 * The relevance (see ChangeFilter) of an object to the controller that reconciles it and alone
 * writes its status: everything but that status. The controller's own status writes then cost
 * it no reconcile; a change of spec (the generation: every kind here has a status subresource),
 * labels, annotations, finalizers, owners or deletion does. (controller-runtime's
 * GenerationChangedPredicate, keeping the metadata a reconcile reads.)
 */
export function allButStatus(obj: Reconciled): unknown {
  const m = obj.metadata ?? {};
  return [
    m.uid,
    m.generation,
    m.deletionTimestamp,
    m.finalizers,
    m.labels,
    m.annotations,
    m.ownerReferences,
  ];
}
