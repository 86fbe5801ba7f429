/** Kubernetes' field error format: `<path>: Invalid value: <json>: <detail>`. */
export function invalid(path: string, value: unknown, detail: string): string {
  return `${path}: Invalid value: ${JSON.stringify(value)}: ${detail}`;
}

/** Keys of a map field; tolerates the field being absent. */
export function keysOf(map: Record<string, unknown> | undefined): string[] {
  return map ? Object.keys(map) : [];
}
