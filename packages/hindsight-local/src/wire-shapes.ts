// The JSON the real server sends: the list item shape (`fact_type`, comma-joined `entities`) differs
// from the get shape (`type`, `entities` array); recall results are a third shape.
import type { StoredBank, StoredMemory } from "./records.js";

export function listItem(m: StoredMemory): Record<string, unknown> {
  return {
    id: m.id,
    text: m.text,
    context: m.context,
    date: m.mentionedAt ?? m.occurredStart,
    fact_type: m.factType,
    document_id: m.documentId,
    mentioned_at: m.mentionedAt,
    occurred_start: m.occurredStart,
    occurred_end: m.occurredEnd,
    entities: m.entities.join(", "),
    chunk_id: null,
    proof_count: m.proofCount,
    tags: [...m.tags],
    metadata: { ...m.metadata },
    consolidated_at: null,
    consolidation_failed_at: null,
    state: m.state,
    invalidation_reason: m.invalidationReason,
    invalidated_at: m.invalidatedAt,
    edited_at: m.editedAt,
  };
}

export function getItem(m: StoredMemory): Record<string, unknown> {
  const item: Record<string, unknown> = {
    id: m.id,
    text: m.text,
    context: m.context,
    date: m.mentionedAt ?? m.occurredStart,
    type: m.factType,
    mentioned_at: m.mentionedAt,
    occurred_start: m.occurredStart,
    occurred_end: m.occurredEnd,
    document_id: m.documentId,
    chunk_id: null,
    proof_count: m.proofCount,
    entities: [...m.entities],
    tags: [...m.tags],
    metadata: { ...m.metadata },
    state: m.state,
    invalidation_reason: m.invalidationReason,
    invalidated_at: m.invalidatedAt,
    edited_at: m.editedAt,
    history: [],
  };
  if (m.factType === "observation") item["source_memory_ids"] = [];
  return item;
}

export function recallResult(m: StoredMemory, score: number): Record<string, unknown> {
  return {
    id: m.id,
    text: m.text,
    type: m.factType,
    entities: [...m.entities],
    context: m.context,
    occurred_start: m.occurredStart,
    occurred_end: m.occurredEnd,
    mentioned_at: m.mentionedAt,
    document_id: m.documentId,
    metadata: { ...m.metadata },
    chunk_id: null,
    tags: [...m.tags],
    scores: { final: score, keyword: score, semantic: null, reranker: null },
  };
}

/** `based_on.memories[]` of a reflect answer. */
export function reflectFact(m: StoredMemory): Record<string, unknown> {
  return { id: m.id, text: m.text, type: m.factType, context: m.context, occurred_start: m.occurredStart, occurred_end: m.occurredEnd };
}

/** The first line of every local reflect answer: the bank has no model, so nothing is synthesized. */
export const NO_MODEL_LINE = "No model was used: hindsight-local has no language model, so this is not a synthesis — it lists the memories recalled for the query, grouped by kind.";

const GROUP_TITLES: Readonly<Record<string, string>> = { world: "World facts", experience: "Experiences", observation: "Observations" };

/** Reflect's markdown `text`: the no-model line, then the recalled memories grouped by fact type (best first within a group). */
export function reflectText(query: string, memories: readonly StoredMemory[]): string {
  const lines = [NO_MODEL_LINE, "", `Query: ${query}`];
  if (memories.length === 0) return [...lines, "", "No memory matched the query."].join("\n");
  for (const type of ["world", "experience", "observation"]) {
    const group = memories.filter((m) => m.factType === type);
    if (group.length === 0) continue;
    lines.push("", `## ${GROUP_TITLES[type] ?? type} (${String(group.length)})`);
    for (const m of group) lines.push(`- ${m.text.replaceAll("\n", " ")}${m.context === null ? "" : ` — ${m.context}`}${m.mentionedAt === null ? "" : ` (${m.mentionedAt})`}`);
  }
  return lines.join("\n");
}

/** `GET …/documents/{id}`: the document assembled from the memories retained under its id. */
export function documentResponse(bankId: string, documentId: string, live: readonly StoredMemory[], all: readonly StoredMemory[]): Record<string, unknown> {
  const ordered = [...all].sort((a, b) => a.seq - b.seq);
  const byType: Record<string, number> = {};
  for (const m of live) byType[m.factType] = (byType[m.factType] ?? 0) + 1;
  const tags = [...new Set(ordered.flatMap((m) => m.tags))];
  const created = ordered.reduce((min, m) => (m.createdAt < min ? m.createdAt : min), ordered[0]?.createdAt ?? "");
  const updated = ordered.reduce((max, m) => (m.createdAt > max ? m.createdAt : max), created);
  return {
    id: documentId,
    bank_id: bankId,
    original_text: ordered.map((m) => m.text).join("\n\n"),
    content_hash: null,
    created_at: created,
    updated_at: updated,
    memory_unit_count: live.length,
    nodes_by_fact_type: byType,
    tags,
    document_metadata: ordered[0] === undefined ? null : { ...ordered[0].metadata },
    retain_params: null,
    observation_scopes: null,
  };
}

export function bankProfile(b: StoredBank): Record<string, unknown> {
  return { bank_id: b.bankId, name: b.name, disposition: { ...b.disposition }, mission: b.mission, background: null };
}

export const FEATURES = {
  observations: false,
  mcp: false,
  worker: false,
  bank_config_api: false,
  bank_llm_health: false,
  file_upload_api: false,
  document_export_api: false,
  document_import_api: false,
  audit_log: false,
  llm_trace: false,
  store_document_text: true,
} as const;
