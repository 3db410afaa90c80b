// FastAPI/pydantic-style request validation: the 422 `{"detail":[{type,loc,msg,input}]}` bodies the
// real server sends, so clients see the same error shapes here.

export interface ValidationIssue {
  readonly type: string;
  readonly loc: readonly (string | number)[];
  readonly msg: string;
  readonly input: unknown;
  readonly ctx?: Readonly<Record<string, unknown>>;
}

export class RequestInvalid extends Error {
  readonly issues: readonly ValidationIssue[];
  constructor(issues: readonly ValidationIssue[]) {
    super(issues.map((i) => `${i.loc.join(".")}: ${i.msg}`).join("; "));
    this.issues = issues;
  }
}

/** Collects issues while reading one request; `done()` throws them as a 422. */
export class Checker {
  readonly issues: ValidationIssue[] = [];

  missing(loc: readonly (string | number)[], input: unknown): void {
    this.issues.push({ type: "missing", loc, msg: "Field required", input });
  }

  string(value: unknown, loc: readonly (string | number)[], nullable = true): string | null | undefined {
    if (value === undefined || (nullable && value === null)) return value === null ? null : undefined;
    if (typeof value === "string") return value;
    this.issues.push({ type: "string_type", loc, msg: "Input should be a valid string", input: value });
    return undefined;
  }

  stringArray(value: unknown, loc: readonly (string | number)[]): string[] | null | undefined {
    if (value === undefined || value === null) return value === null ? null : undefined;
    if (!Array.isArray(value)) {
      this.issues.push({ type: "list_type", loc, msg: "Input should be a valid list", input: value });
      return undefined;
    }
    const out: string[] = [];
    value.forEach((v, i) => {
      const s = this.string(v, [...loc, i], false);
      if (typeof s === "string") out.push(s);
    });
    return out;
  }

  boolean(value: unknown, loc: readonly (string | number)[]): boolean | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === "boolean") return value;
    this.issues.push({ type: "bool_type", loc, msg: "Input should be a valid boolean", input: value });
    return undefined;
  }

  integer(value: unknown, loc: readonly (string | number)[], min?: number, max?: number): number | undefined {
    if (value === undefined || value === null) return undefined;
    let n: number;
    if (typeof value === "number" && Number.isInteger(value)) n = value;
    else if (typeof value === "string" && /^-?\d{1,15}$/.test(value.trim())) n = Number.parseInt(value.trim(), 10);
    else {
      this.issues.push({ type: "int_parsing", loc, msg: "Input should be a valid integer, unable to parse string as an integer", input: value });
      return undefined;
    }
    if (min !== undefined && n < min) {
      this.issues.push({ type: "greater_than_equal", loc, msg: `Input should be greater than or equal to ${min}`, input: value, ctx: { ge: min } });
      return undefined;
    }
    if (max !== undefined && n > max) {
      this.issues.push({ type: "less_than_equal", loc, msg: `Input should be less than or equal to ${max}`, input: value, ctx: { le: max } });
      return undefined;
    }
    return n;
  }

  literal<T extends string>(value: unknown, loc: readonly (string | number)[], allowed: readonly T[]): T | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value === "string" && (allowed as readonly string[]).includes(value)) return value as T;
    const expected = allowed.map((a) => `'${a}'`).join(", ").replace(/, ([^,]*)$/, " or $1");
    this.issues.push({ type: "literal_error", loc, msg: `Input should be ${expected}`, input: value, ctx: { expected } });
    return undefined;
  }

  object(value: unknown, loc: readonly (string | number)[]): Record<string, unknown> | undefined {
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    this.issues.push({ type: "model_attributes_type", loc, msg: "Input should be a valid dictionary or object to extract fields from", input: value });
    return undefined;
  }

  stringMap(value: unknown, loc: readonly (string | number)[]): Record<string, string> | null | undefined {
    if (value === undefined || value === null) return value === null ? null : undefined;
    if (typeof value !== "object" || Array.isArray(value)) {
      this.issues.push({ type: "dict_type", loc, msg: "Input should be a valid dictionary", input: value });
      return undefined;
    }
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(value)) {
      const s = this.string(v, [...loc, k], false);
      if (typeof s === "string") out[k] = s;
    }
    return out;
  }

  valueError(loc: readonly (string | number)[], message: string, input: unknown): void {
    this.issues.push({ type: "value_error", loc, msg: `Value error, ${message}`, input, ctx: { error: {} } });
  }

  done(): void {
    if (this.issues.length > 0) throw new RequestInvalid(this.issues);
  }
}

/** Parse a JSON body the way FastAPI reports a broken one. */
export function parseJsonBody(raw: string): unknown {
  if (raw.trim() === "") throw new RequestInvalid([{ type: "missing", loc: ["body"], msg: "Field required", input: null }]);
  try {
    return JSON.parse(raw);
  } catch (error) {
    throw new RequestInvalid([
      { type: "json_invalid", loc: ["body", 0], msg: "JSON decode error", input: {}, ctx: { error: error instanceof Error ? error.message : String(error) } },
    ]);
  }
}

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

/** ISO-8601 (or "unset" → null); anything else is a 422 like pydantic's. Returns normalized UTC ISO. */
export function normalizeTimestamp(value: string): string | undefined {
  const ms = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) return undefined;
  return new Date(ms).toISOString();
}
