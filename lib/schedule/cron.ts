/**
 * Standard five-field cron (minute hour day-of-month month day-of-week, UTC) as Repository
 * `spec.sync.schedule` uses it: `*`, lists, ranges, steps (`*\/10`, `1-30/5`), names for months
 * and weekdays, and `@hourly`-style shortcuts.
 */
export class CronError extends Error {}

interface Field {
  min: number;
  max: number;
  names?: string[];
}

const FIELDS: Field[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  {
    min: 1,
    max: 12,
    names: ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"],
  },
  { min: 0, max: 6, names: ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] },
];

const SHORTCUTS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

function value(text: string, field: Field): number {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  const n = named >= 0 ? named + field.min : Number(text);
  // Day-of-week 7 is Sunday too.
  if (field.max === 6 && n === 7) return 0;
  if (!Number.isInteger(n) || n < field.min || n > field.max) {
    throw new CronError(`"${text}" is not in ${field.min}-${field.max}`);
  }
  return n;
}

function parseField(text: string, field: Field): Set<number> {
  const out = new Set<number>();
  for (const part of text.split(",")) {
    const [range, stepText] = part.split("/");
    const step = stepText === undefined ? 1 : Number(stepText);
    if (!Number.isInteger(step) || step < 1) throw new CronError(`bad step "${stepText}"`);
    let [lo, hi] = [field.min, field.max];
    if (range !== "*") {
      const [a, b] = range.split("-");
      lo = value(a, field);
      hi = b === undefined ? (stepText === undefined ? lo : field.max) : value(b, field);
    }
    if (lo > hi) throw new CronError(`range "${range}" is backwards`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

export interface CronSchedule {
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  /** Cron ORs day-of-month and day-of-week when both are restricted. */
  dayOr: boolean;
}

export function parseCron(expression: string): CronSchedule {
  const text = SHORTCUTS[expression.trim()] ?? expression.trim();
  const parts = text.split(/\s+/);
  if (parts.length !== 5)
    throw new CronError(`"${expression}" must have 5 fields (minute hour day month weekday)`);
  try {
    const [minutes, hours, days, months, weekdays] = parts.map((p, i) => parseField(p, FIELDS[i]));
    return { minutes, hours, days, months, weekdays, dayOr: parts[2] !== "*" && parts[4] !== "*" };
  } catch (error) {
    throw new CronError(`invalid cron schedule "${expression}": ${(error as Error).message}`);
  }
}

function dayMatches(s: CronSchedule, d: Date): boolean {
  const dom = s.days.has(d.getUTCDate());
  const dow = s.weekdays.has(d.getUTCDay());
  return s.dayOr ? dom || dow : dom && dow;
}

/** The first minute strictly after `from` that the schedule matches (UTC). */
export function nextRun(schedule: CronSchedule, from: Date): Date {
  const t = new Date(from.getTime());
  t.setUTCSeconds(0, 0);
  t.setUTCMinutes(t.getUTCMinutes() + 1);
  // Four years of minutes covers every satisfiable schedule (29 February included).
  for (let i = 0; i < 4 * 366 * 24 * 60; i++) {
    if (!schedule.months.has(t.getUTCMonth() + 1) || !dayMatches(schedule, t)) {
      t.setUTCDate(t.getUTCDate() + 1);
      t.setUTCHours(0, 0, 0, 0);
      continue;
    }
    if (!schedule.hours.has(t.getUTCHours())) {
      t.setUTCHours(t.getUTCHours() + 1, 0, 0, 0);
      continue;
    }
    if (schedule.minutes.has(t.getUTCMinutes())) return t;
    t.setUTCMinutes(t.getUTCMinutes() + 1);
  }
  throw new CronError("the schedule never matches");
}
