// Resolves a contract anchor (`r:<toolCallId>`, `a:<responseId>:p<n>`, optional `:edit:<id>`) to its
// block text, verified against an expected sha256. Missing and twice-matching anchors are typed results.
import { parseAnchor } from "@context-fold/seed-index-format/anchors";
import { joinTextParts, sha256Hex } from "@context-fold/seed-index-format/block-text";
import { blockTextFromFile } from "./block-text-from-file.js";
import { LedgerError } from "./errors.js";
import { type SessionShape, streamEntries } from "./read-session.js";
import { stateOf } from "./session-state.js";
import type { Block, ResolveResult, Session } from "./types.js";
import { isRecord } from "./is-record.js";

const EDIT_MARK = ":edit:";

/** The block anchor `anchor` names, without its `:edit:<id>` suffix; undefined when it is malformed. */
export function anchorBase(anchor: string): string | undefined {
  const parsed = parseAnchor(anchor);
  if (!parsed.ok) return undefined;
  const editId = parsed.anchor.editId;
  return editId === undefined ? anchor : anchor.slice(0, anchor.length - EDIT_MARK.length - editId.length);
}

/**
 * A view of a session's shape holding, with their text, only the blocks carrying one of `anchors` (edit
 * suffixes ignored), from one streamed read of every entry (an anchor may sit on any branch): what
 * `resolveAnchor` needs to resolve those anchors exactly as on the whole read, in memory that grows
 * with the anchors asked for, not the session.
 */
export async function withAnchoredBlocks(shape: SessionShape, anchors: Iterable<string>): Promise<Session> {
  const { session } = shape;
  const wanted = new Set<string>();
  for (const anchor of anchors) {
    const base = anchorBase(anchor);
    if (base !== undefined) wanted.add(base);
  }
  const blocks: Block[] = [];
  if (wanted.size > 0) {
    for await (const item of streamEntries(session.path, session.header.fragment === true ? { fragment: true } : {})) {
      if (item.kind !== "entry") continue;
      const known = session.entries[item.entry.position];
      if (known?.id !== item.entry.id) {
        throw new LedgerError("LEDGER_CHANGED", session.path, `entry ${String(item.entry.position)} is ${item.entry.id}, not ${String(known?.id)} as first read: the file changed between reads; run again`, {
          line: item.entry.line,
          byteOffset: item.entry.byteOffset,
        });
      }
      for (const block of item.blocks) if (block.anchor !== undefined && wanted.has(block.anchor)) blocks.push(block);
    }
  }
  const view: Session = { ...session, blocks, withText: true };
  // Looked up by anchor, as a whole read's builder does: a scan of the held blocks per span is quadratic.
  const byAnchor = new Map<string, Block[]>();
  for (const block of blocks) {
    const anchor = block.anchor ?? "";
    const list = byAnchor.get(anchor);
    if (list === undefined) byAnchor.set(anchor, [block]);
    else list.push(block);
  }
  anchoredViews.set(view, byAnchor);
  return view;
}

/** The anchor index of each view `withAnchoredBlocks` made. */
const anchoredViews = new WeakMap<Session, ReadonlyMap<string, readonly Block[]>>();

/** Blocks carrying `anchor` (without an edit suffix), in file order. */
export function blocksWithAnchor(session: Session, anchor: string): Block[] {
  const held = anchoredViews.get(session);
  if (held !== undefined) return [...(held.get(anchor) ?? [])];
  const state = stateOf(session);
  if (state !== undefined) {
    // The read's builder indexed the anchor of every block it took: a miss is no block, never a scan
    // of all of them (a caller asking whether a snapshot already holds a new anchor misses often).
    const indexes = state.builder.anchors.get(anchor);
    return indexes === undefined ? [] : indexes.flatMap((i) => session.blocks[i] ?? []);
  }
  return session.blocks.filter((block) => block.anchor === anchor);
}

function ok(anchor: string, text: string, block: Block, expected: string | undefined, editId?: string): ResolveResult {
  const sha256 = sha256Hex(text);
  const verified = expected === undefined ? null : sha256 === expected.toLowerCase();
  return editId === undefined
    ? { status: "ok", anchor, text, sha256, verified, block }
    : { status: "ok", anchor, text, sha256, verified, block, editId };
}

/**
 * The text an anchor names: the block's text, or with `:edit:<id>` that context_edit's replacement.
 * `verified` is true/false when `expectedSha256` is given, null otherwise.
 */
export function resolveAnchor(session: Session, anchor: string, expectedSha256?: string): ResolveResult {
  const parsed = parseAnchor(anchor);
  if (!parsed.ok) return { status: "malformed", anchor, reason: parsed.reason };
  const editId = parsed.anchor.editId;
  const base = anchorBase(anchor) ?? anchor;
  const candidates = blocksWithAnchor(session, base);
  if (editId === undefined) {
    const [block, ...others] = candidates;
    if (block === undefined) return { status: "missing", anchor, reason: `no block in ${session.path} carries ${base}` };
    if (others.length > 0) return { status: "ambiguous", anchor, candidates };
    const text = session.withText ? block.text : blockTextFromFile(session, block);
    return ok(anchor, text, block, expectedSha256);
  }
  const edit = session.byId.get(editId);
  if (edit === undefined || edit.type !== "context_edit") {
    return { status: "missing", anchor, reason: `no context_edit entry ${editId} in ${session.path}` };
  }
  const target = edit.raw["targetId"];
  const block = candidates.find((b) => b.entryId === target);
  if (block === undefined) {
    const why = candidates.length === 0 ? `no block carries ${base}` : `context_edit ${editId} targets another entry (${String(target)})`;
    return { status: "missing", anchor, reason: why };
  }
  const replacement = edit.raw["replacement"];
  if (!isRecord(replacement)) {
    return { status: "missing", anchor, reason: `context_edit ${editId} hides its target (replacement null): it has no text` };
  }
  return ok(anchor, joinTextParts(replacement["content"]), block, expectedSha256, editId);
}
