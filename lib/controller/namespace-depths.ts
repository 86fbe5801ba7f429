/**
 * Each work queue's depth per namespace (keys queued or running), in Prometheus' text format.
 * Only a namespace with work has a series, and it goes when the work does: a series per
 * namespace ever seen would grow with every tenant created over the process's life.
 */
export class NamespaceDepths {
  /** Metric name → its help and the depth of each namespace with work. */
  readonly #metrics = new Map<string, { help: string; depths: Map<string, number> }>();

  declare(metric: string, help: string): void {
    if (!this.#metrics.has(metric)) this.#metrics.set(metric, { help, depths: new Map() });
  }

  set(metric: string, namespace: string, depth: number): void {
    const depths = this.#metrics.get(metric)?.depths;
    if (!depths) throw new Error(`metric ${metric} is not declared`);
    if (depth > 0) depths.set(namespace, depth);
    else depths.delete(namespace);
  }

  /** The series in the text exposition format, one block per declared metric. */
  exposition(): string {
    let text = "";
    for (const [metric, { help, depths }] of this.#metrics) {
      text += `# HELP ${metric} ${help}\n# TYPE ${metric} gauge\n`;
      for (const [namespace, depth] of depths)
        text += `${metric}{namespace="${labelValue(namespace)}"} ${depth}\n`;
    }
    return text;
  }
}

/** A label value as the format escapes it (a namespace name never needs it; a key might). */
const labelValue = (value: string) =>
  value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
