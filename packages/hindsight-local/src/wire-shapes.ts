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
