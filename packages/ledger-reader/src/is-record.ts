// Whether a parsed JSON value is a plain object (not null, not an array): the guard every reader of a
// session entry uses before it looks at a field. A leaf module, importing nothing, so every file of this
// package can use it without a cycle.
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
