// The anchor grammar of contract-decisions.md, parsed right to left:
// anchor = base [":edit:" editId]; base = "r:" toolCallId | "a:" responseId ":p" n.
import { AnchorError } from "./errors.js";

/** A durable pointer into the session file: a toolResult, or one part of an assistant message. */
export type Anchor =
  | { kind: "result"; toolCallId: string; editId?: string }
  | { kind: "part"; responseId: string; part: number; editId?: string };

export type AnchorParse = { ok: true; anchor: Anchor } | { ok: false; reason: string };

const EDIT_MARK = ":edit:";
const PART_MARK = ":p";

/** A Pi entry id: 8 lowercase hex, or a lowercase UUID. */
export function isEditId(text: string): boolean {
  return /^[0-9a-f]{8}$/.test(text) || /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text);
}

function isPartIndex(text: string): boolean {
  return /^(?:0|[1-9][0-9]{0,14})$/.test(text);
}

/**
 * Parse an anchor. The suffix `:edit:<id>` counts only when `<id>` is a Pi entry id; `:p<n>` is the
 * rightmost one. Everything between prefix and suffix is the id, whatever it contains.
 */
export function parseAnchor(text: string): AnchorParse {
  if (typeof text !== "string") return { ok: false, reason: "anchor is not a string" };
  let base = text;
  let editId: string | undefined;
  const editAt = text.lastIndexOf(EDIT_MARK);
  if (editAt >= 0) {
    const candidate = text.slice(editAt + EDIT_MARK.length);
    if (isEditId(candidate)) {
      editId = candidate;
      base = text.slice(0, editAt);
    }
  }
  const withEdit = <T extends Anchor>(anchor: T): T => (editId === undefined ? anchor : { ...anchor, editId });
  if (base.startsWith("r:")) {
    const toolCallId = base.slice(2);
    if (toolCallId.length === 0) return { ok: false, reason: `"${text}": empty toolCallId after "r:"` };
    return { ok: true, anchor: withEdit({ kind: "result", toolCallId }) };
  }
  if (base.startsWith("a:")) {
    const partAt = base.lastIndexOf(PART_MARK);
    if (partAt < 2) return { ok: false, reason: `"${text}": an assistant anchor needs ":p<n>" after the responseId` };
    const responseId = base.slice(2, partAt);
    const digits = base.slice(partAt + PART_MARK.length);
    if (responseId.length === 0) return { ok: false, reason: `"${text}": empty responseId after "a:"` };
    if (!isPartIndex(digits)) {
      return { ok: false, reason: `"${text}": part index "${digits}" is not a 0-based decimal without leading zeros` };
    }
    return { ok: true, anchor: withEdit({ kind: "part", responseId, part: Number(digits) }) };
  }
  return { ok: false, reason: `"${text.length > 80 ? `${text.slice(0, 80)}…` : text}": an anchor starts with "r:" or "a:"` };
}

/**
 * Does this anchor parse and carry an editId? The same answer as `parseAnchor`, without parsing the
 * (usual) anchor that has no edit mark at all: a seed record asks it of every span.
 */
export function isEditedAnchor(text: string): boolean {
  if (!text.includes(EDIT_MARK)) return false;
  const parsed = parseAnchor(text);
  return parsed.ok && parsed.anchor.editId !== undefined;
}

function sameAnchor(a: Anchor, b: Anchor): boolean {
  if (a.editId !== b.editId) return false;
  if (a.kind === "result") return b.kind === "result" && a.toolCallId === b.toolCallId;
  return b.kind === "part" && a.responseId === b.responseId && a.part === b.part;
}

/**
 * Write an anchor. Throws AnchorError when the result would not parse back to the same anchor: an empty
 * id, a bad part index or editId, or a toolCallId that itself ends in `:edit:<entry id>`.
 */
export function formatAnchor(anchor: Anchor): string {
  const base =
    anchor.kind === "result" ? `r:${anchor.toolCallId}` : `a:${anchor.responseId}${PART_MARK}${String(anchor.part)}`;
  if (anchor.editId !== undefined && !isEditId(anchor.editId)) {
    throw new AnchorError(`editId ${JSON.stringify(anchor.editId)} is not a Pi entry id (8 lowercase hex or a UUID)`);
  }
  const text = anchor.editId === undefined ? base : `${base}${EDIT_MARK}${anchor.editId}`;
  const back = parseAnchor(text);
  if (!back.ok) throw new AnchorError(back.reason);
  if (!sameAnchor(back.anchor, anchor)) {
    throw new AnchorError(`anchor ${JSON.stringify(text)} would read back differently (its id ends in ":edit:<entry id>")`);
  }
  return text;
}

/** `r:<toolCallId>`, the anchor of a toolResult. */
export function resultAnchor(toolCallId: string): string {
  return formatAnchor({ kind: "result", toolCallId });
}

/** `a:<responseId>:p<n>`, the anchor of part n of an assistant message. */
export function partAnchor(responseId: string, part: number): string {
  return formatAnchor({ kind: "part", responseId, part });
}
