import type { EventType, ObjectRef, ResourceKind } from "../../../lib/cluster/port";

export type Verb = "get" | "list" | "create" | "patch" | "apply" | "delete";

/** What `event()` was told. */
export interface RecordedEvent {
  type: EventType;
  reason: string;
  message: string;
  kind?: string;
  namespace?: string;
  name?: string;
}

/** The call log tests assert on, and the failures they queued. */
export class Journal {
  /** Every call, as `verb Kind namespace/name` (`(status)` appended for /status writes). */
  readonly calls: string[] = [];
  readonly #faults: { verb: Verb; kindName: string; error: Error }[] = [];

  failNext(verb: Verb, kindName: string, error: Error): void {
    this.#faults.push({ verb, kindName, error });
  }

  note(...words: (string | undefined)[]): void {
    this.calls.push(words.filter(Boolean).join(" "));
  }

  /** Logs a call, then throws the first failure queued for it. */
  record(verb: Verb, kind: ResourceKind, ref: Partial<ObjectRef>, status?: boolean): void {
    // The adapter ignores the namespace of a cluster-scoped kind, and so does the log.
    const target = [kind.namespaced ? ref.namespace : undefined, ref.name].filter(Boolean);
    this.note(verb, kind.kind, target.join("/"), status ? "(status)" : undefined);
    const index = this.#faults.findIndex(
      f => f.verb === verb && (f.kindName === kind.kind || f.kindName === "*"),
    );
    if (index >= 0) throw this.#faults.splice(index, 1)[0].error;
  }
}
