// A count read from the environment: a setting that is not one is named in a warning and the
// default is used, so a typo never stops the operator or turns a bound off.

export interface CountSetting {
  value: number;
  /** What was wrong with the setting, if anything. */
  warning?: string;
}

/** `env[name]`: a whole number from 1 to `max`; unset or empty: `fallback`. */
export function countSetting(
  env: Record<string, string | undefined>,
  name: string,
  fallback: number,
  max: number,
): CountSetting {
  const text = env[name];
  if (text === undefined || text === "") return { value: fallback };
  // Digits only (no exponent, sign or space), and no more than `max` has.
  const n = /^[0-9]+$/.test(text) && text.length <= String(max).length ? Number(text) : NaN;
  if (n >= 1 && n <= max) return { value: n };
  return {
    value: fallback,
    warning: `${name}=${JSON.stringify(text)} is not a count from 1 to ${max}: using ${fallback}`,
  };
}
