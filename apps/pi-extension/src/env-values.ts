// Reading option values from CONTEXT_FOLD_* environment variables: one rule for numbers in a range and
// one for booleans, shared by every option group. A bad value is reported and the default kept.
/** A CONTEXT_FOLD_* value that was set but could not be used (the default stays). */
export interface OptionWarning {
  readonly variable: string;
  readonly value: string;
  readonly reason: string;
}

export type Env = Readonly<Record<string, string | undefined>>;

export interface NumericSpec {
  readonly variable: string;
  readonly min: number;
  readonly max: number;
  readonly integer: boolean;
}

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["0", "false", "no", "off"]);

/** The variable's number when set and in range; undefined (plus a warning when set but bad) otherwise. */
export function numberFromEnv(env: Env, spec: NumericSpec, warnings: OptionWarning[]): number | undefined {
  const raw = env[spec.variable];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < spec.min || value > spec.max || (spec.integer && !Number.isInteger(value))) {
    warnings.push({ variable: spec.variable, value: raw, reason: `expected ${spec.integer ? "an integer" : "a number"} from ${String(spec.min)} to ${String(spec.max)}` });
    return undefined;
  }
  return value;
}

/** The variable's boolean when set to a known word; undefined (plus a warning when set but bad) otherwise. */
export function booleanFromEnv(env: Env, variable: string, warnings: OptionWarning[]): boolean | undefined {
  const raw = env[variable];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = raw.trim().toLowerCase();
  if (TRUE.has(value)) return true;
  if (FALSE.has(value)) return false;
  warnings.push({ variable, value: raw, reason: "expected true or false (1/0, yes/no, on/off)" });
  return undefined;
}
