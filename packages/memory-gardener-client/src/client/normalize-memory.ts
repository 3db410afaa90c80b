// One normalizer for the three memory shapes Hindsight sends (list item, get/patch answer, recall
// result): `fact_type` vs `type`, comma-joined vs array `entities`, `date` vs `mentioned_at`.
import type { FactType, Memory, MemoryState } from "./types.js";

/** A memory the server sent that lacks what every shape has (`id`, `text`, a known fact type). */
export class HindsightShapeError extends Error {
  readonly code = "HINDSIGHT_SHAPE" as const;
  readonly raw: unknown;
  constructor(message: string, raw: unknown) {
    super(message);
    this.name = "HindsightShapeError";
    this.raw = raw;
  }
}

const FACT_TYPES: readonly string[] = ["world", "experience", "observation"];
// The list endpoint's string form may carry a type in parentheses ("Alice (PERSON)"): drop it.
// One bounded character class anchored at the end: linear time.
const ENTITY_TYPE_SUFFIX = /\s\([A-Z][A-Z_]{0,63}\)$/;

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

function nonEmpty(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}

export function parseEntities(value: unknown): string[] {
  if (typeof value === "string") {
    return value
      .split(",")
      .map((part) => part.trim().replace(ENTITY_TYPE_SUFFIX, ""))
      .filter((part) => part !== "");
  }
  if (Array.isArray(value)) {
    return value
      .map((entry: unknown) => (typeof entry === "string" ? entry : typeof entry === "object" && entry !== null ? str((entry as { text?: unknown; name?: unknown }).text ?? (entry as { name?: unknown }).name) : null))
      .filter((entry): entry is string => entry !== null && entry !== "");
  }
  return [];
}

/** Normalize a list item, a get/patch answer or a recall result into a `Memory`. */
export function normalizeMemory(raw: unknown): Memory {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new HindsightShapeError("memory is not a JSON object", raw);
  const r = raw as Record<string, unknown>;
  const id = str(r["id"]);
  const text = str(r["text"]);
  if (id === null || text === null) throw new HindsightShapeError(`memory lacks a string ${id === null ? "id" : "text"}`, raw);
  const factType = str(r["fact_type"]) ?? str(r["type"]);
  if (factType === null || !FACT_TYPES.includes(factType)) throw new HindsightShapeError(`memory ${id} has no known fact type (fact_type/type = ${JSON.stringify(factType)})`, raw);
  const state: MemoryState = r["state"] === "invalidated" ? "invalidated" : "valid";
  const metadata: Record<string, string> = {};
  const rawMeta = r["metadata"];
  if (typeof rawMeta === "object" && rawMeta !== null && !Array.isArray(rawMeta)) {
    for (const [k, v] of Object.entries(rawMeta)) if (typeof v === "string") metadata[k] = v;
  }
  const tags = Array.isArray(r["tags"]) ? (r["tags"] as unknown[]).filter((t): t is string => typeof t === "string") : [];
  const mentionedAt = nonEmpty(r["mentioned_at"]);
  const occurredStart = nonEmpty(r["occurred_start"]);
  return {
    id,
    text,
    context: nonEmpty(r["context"]),
    date: nonEmpty(r["date"]) ?? mentionedAt ?? occurredStart,
    factType: factType as FactType,
    entities: parseEntities(r["entities"]),
    tags,
    metadata,
    state,
    invalidationReason: nonEmpty(r["invalidation_reason"]),
    invalidatedAt: nonEmpty(r["invalidated_at"]),
    mentionedAt,
    occurredStart,
    occurredEnd: nonEmpty(r["occurred_end"]),
    documentId: nonEmpty(r["document_id"]),
  };
}
