/** A metav1.Condition. */
export interface Condition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason: string;
  message: string;
  lastTransitionTime: string;
  observedGeneration?: number;
}

export type ConditionInput = Omit<Condition, "lastTransitionTime" | "observedGeneration">;

/**
 * Sets one condition, keeping lastTransitionTime when the status did not change (as
 * apimachinery's meta.SetStatusCondition does), so an unchanged status writes nothing new.
 */
export function setCondition(
  conditions: Condition[] | undefined,
  input: ConditionInput,
  observedGeneration: number | undefined,
  now: Date,
): Condition[] {
  const existing = (conditions ?? []).find(c => c.type === input.type);
  const lastTransitionTime =
    existing && existing.status === input.status ? existing.lastTransitionTime : now.toISOString();
  const next: Condition = {
    ...input,
    lastTransitionTime,
    ...(observedGeneration !== undefined && { observedGeneration }),
  };
  return [...(conditions ?? []).filter(c => c.type !== input.type), next].sort((a, b) =>
    a.type.localeCompare(b.type),
  );
}

export function findCondition(
  conditions: Condition[] | undefined,
  type: string,
): Condition | undefined {
  return conditions?.find(c => c.type === type);
}
