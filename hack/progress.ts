// Progress output for long steps: every long step of the run command shows what it is doing,
// how far it is and for how long it has been running.

const started = Date.now();

function elapsed(since: number): string {
  const s = Math.round((Date.now() - since) / 1000);
  return s >= 60 ? `${Math.floor(s / 60)}m${String(s % 60).padStart(2, "0")}s` : `${s}s`;
}

/** One line per step: "[3/7 +12s] starting kube-apiserver" ("[3 +12s]" when steps vary). */
export class Steps {
  #n = 0;
  constructor(private readonly total?: number) {}

  step(what: string): void {
    this.#n += 1;
    const of = this.total === undefined ? "" : `/${this.total}`;
    process.stderr.write(`[${this.#n}${of} +${elapsed(started)}] ${what}\n`);
  }
}

/** A redrawn bar on a TTY, a line per 10% otherwise (CI logs stay short). */
export class Bar {
  #lastDecile = -1;
  readonly #since = Date.now();
  constructor(
    private readonly label: string,
    private total: number,
  ) {}

  update(done: number, total = this.total): void {
    this.total = Math.max(total, 1);
    const ratio = Math.min(done / this.total, 1);
    const pct = Math.floor(ratio * 100);
    if (process.stderr.isTTY) {
      const width = 30;
      const fill = Math.round(ratio * width);
      const bar = "#".repeat(fill) + ".".repeat(width - fill);
      process.stderr.write(`\r  ${this.label} [${bar}] ${pct}% ${elapsed(this.#since)}   `);
      return;
    }
    const decile = Math.floor(pct / 10);
    if (decile !== this.#lastDecile) {
      this.#lastDecile = decile;
      process.stderr.write(`  ${this.label}: ${pct}% after ${elapsed(this.#since)}\n`);
    }
  }

  done(note = "done"): void {
    if (process.stderr.isTTY) process.stderr.write("\n");
    process.stderr.write(`  ${this.label}: ${note} in ${elapsed(this.#since)}\n`);
  }
}

export function log(message: string): void {
  process.stderr.write(`  ${message}\n`);
}
