// What an entry keeps of its raw JSON when the session is read without text (`withText: false`) or as
// shapes only (`readSessionShape`): the message content stays in the file, at the entry's byte offset,
// so large sessions are held in little memory. Apart from the builder, which only chooses which applies.

import { isRecord } from "./is-record.js";

/** A message entry without its content (what `withText: false` keeps): the text stays in the file. */
export function withoutText(raw: Record<string, unknown>): Record<string, unknown> {
  const message = raw["message"];
  if (raw["type"] !== "message" || !isRecord(message)) return raw;
  const { content: _content, output: _output, ...rest } = message;
  return { ...raw, message: rest };
}

/** Shape mode: one frozen raw per (type, message role), shared by every entry of that kind. */
const SHARED_SHAPES = new Map<string, Readonly<Record<string, unknown>>>();

/**
 * An entry's `raw` as the shape read keeps it: its type and message role — shared by all entries of
 * that kind, since ids, parent and time live on the Entry itself — plus, on its own object, a
 * compaction's cut, size and summary or a context_edit's target and replacement. None of the message
 * content: the rest stays in the file, at the entry's byte offset.
 */
export function shapeOf(raw: Record<string, unknown>): Readonly<Record<string, unknown>> {
  const type = raw["type"];
  if (type === "compaction" || type === "context_edit" || type === "branch_summary") {
    const out: Record<string, unknown> = { type, id: raw["id"] };
    // A context_edit keeps its replacement: few in any session, and what a record applies to its target.
    // A compaction's systemMessage and a branch summary's text decide how many messages Pi's context
    // makes of them (the cut counts them); both are rare entries.
    for (const key of ["parentId", "timestamp", "firstKeptEntryId", "tokensBefore", "fromHook", "summary", "systemMessage", "targetId", "replacement"]) if (key in raw) out[key] = raw[key];
    return out;
  }
  const message = raw["message"];
  const role = type === "message" && isRecord(message) && "role" in message ? message["role"] : undefined;
  const key = `${String(type)}\u0000${typeof role === "string" ? role : typeof role}`;
  let shared = SHARED_SHAPES.get(key);
  if (shared === undefined) {
    shared = Object.freeze(type === "message" && isRecord(message) ? { type, message: Object.freeze("role" in message ? { role } : {}) } : { type });
    SHARED_SHAPES.set(key, shared);
  }
  return shared;
}
