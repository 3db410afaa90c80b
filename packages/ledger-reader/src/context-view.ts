// What Pi would send the model for the active leaf: the latest compaction on the lineage, the entries
// kept from its firstKeptEntryId, everything after it, with context_edits applied (latest per target).
import { LedgerError } from "./errors.js";
import type { ContextItem, Entry, Session } from "./types.js";
import { isRecord } from "./is-record.js";

type Message = Readonly<Record<string, unknown>>;

function isSystemMessage(entry: Entry): boolean {
  const message = entry.raw["message"];
  return entry.type === "message" && isRecord(message) && message["role"] === "system";
}

/** Entry timestamps become epoch milliseconds in Pi's synthetic messages (NaN when absent, as in Pi). */
function millis(timestamp: unknown): number {
  return new Date(timestamp as string).getTime();
}

/** The entries Pi selects for context: compaction first, kept non-system entries, then the rest. */
export function contextEntries(lineage: readonly Entry[]): Entry[] {
  // Plain loops here and below, not per-call callbacks: a callback made on every call loses its optimized
  // code at each full GC, and the compaction hook calls this on every compaction.
  let compactionAt = -1;
  for (let i = lineage.length - 1; i >= 0; i--) {
    if (lineage[i]?.type === "compaction") {
      compactionAt = i;
      break;
    }
  }
  const compaction = lineage[compactionAt];
  if (compaction === undefined) return [...lineage];
  const selected: Entry[] = [compaction];
  const firstKept = compaction.raw["firstKeptEntryId"];
  let kept = false;
  for (let i = 0; i < compactionAt; i++) {
    const entry = lineage[i];
    if (entry === undefined) continue;
    if (entry.id === firstKept) kept = true;
    if (kept && !isSystemMessage(entry)) selected.push(entry);
  }
  for (let i = compactionAt + 1; i < lineage.length; i++) {
    const entry = lineage[i];
    if (entry !== undefined) selected.push(entry);
  }
  return selected;
}

/** The messages one entry contributes, before edits (Pi's sessionEntryToContextMessages). */
function entryMessages(entry: Entry): Message[] {
  const raw = entry.raw;
  switch (entry.type) {
    case "message": {
      const message = raw["message"];
      if (!isRecord(message)) return [];
      const role = message["role"];
      if (role === "system" && message["content"] == null) return [{ ...message, content: "" }];
      if ((role === "user" || role === "assistant" || role === "toolResult") && message["content"] == null) {
        return [{ ...message, content: [] }];
      }
      return [message];
    }
    case "custom_message":
      return [
        {
          role: "custom",
          customType: raw["customType"],
          content: raw["content"] ?? [],
          display: raw["display"],
          details: raw["details"],
          timestamp: millis(raw["timestamp"]),
        },
      ];
    case "branch_summary":
      if (!raw["summary"]) return [];
      return [{ role: "branchSummary", summary: raw["summary"], fromId: raw["fromId"], timestamp: millis(raw["timestamp"]) }];
    case "compaction": {
      const summary = { role: "compactionSummary", summary: raw["summary"], tokensBefore: raw["tokensBefore"], timestamp: millis(raw["timestamp"]) };
      const system = raw["systemMessage"];
      return isRecord(system) ? [system, summary] : [summary];
    }
    default:
      return [];
  }
}

const EDITABLE_ROLES = new Set(["user", "assistant", "toolResult", "custom"]);

/** Apply one context_edit's replacement to the messages of its target (Pi's projectContextEntry). */
function applyEdit(messages: Message[], edit: Entry): Message[] {
  const replacement = edit.raw["replacement"];
  if (replacement === null || !isRecord(replacement)) return [];
  return messages.map((message) => {
    const role = message["role"];
    if (typeof role !== "string" || !EDITABLE_ROLES.has(role)) return message;
    const content =
      (role === "assistant" || role === "toolResult") && typeof replacement["content"] === "string"
        ? [{ type: "text", text: replacement["content"] }]
        : replacement["content"];
    return { ...message, content };
  });
}

/** Does `edit` (a target's latest context_edit) remove its target's messages (`applyEdit` returning none)? */
function removedByEdit(edit: Entry | undefined): boolean {
  if (edit === undefined) return false;
  const replacement = edit.raw["replacement"];
  return replacement === null || !isRecord(replacement);
}

/**
 * The roles of the messages `entryMessages` makes of `entry`, without making them: their count, the roles
 * left in ROLES[0] and ROLES[1] (an entry makes at most two). The same cases in the same order, so the
 * roles `contextRoles` lists are those of `contextView`'s items.
 */
const ROLES: [string, string] = ["", ""];
function entryRoles(entry: Entry): number {
  const raw = entry.raw;
  switch (entry.type) {
    case "message": {
      const message = raw["message"];
      if (!isRecord(message)) return 0;
      ROLES[0] = roleOf(message);
      return 1;
    }
    case "custom_message":
      ROLES[0] = "custom";
      return 1;
    case "branch_summary":
      if (!raw["summary"]) return 0;
      ROLES[0] = "branchSummary";
      return 1;
    case "compaction": {
      const system = raw["systemMessage"];
      if (!isRecord(system)) {
        ROLES[0] = "compactionSummary";
        return 1;
      }
      ROLES[0] = roleOf(system);
      ROLES[1] = "compactionSummary";
      return 2;
    }
    default:
      return 0;
  }
}

/** A message's role as the context walk reads it ("" when it has none). */
function roleOf(message: Message): string {
  const role = message["role"];
  return typeof role === "string" ? role : "";
}

/** Takes each message of the context in order (`visitContext`): the items, or only positions and roles. */
interface ContextSink {
  message(entry: Entry, role: string, message: Message, editId: string | undefined): void;
}

function checkLoaded(session: Session): void {
  if (!session.withText) {
    throw new LedgerError("NOT_LOADED", session.path, "the context view needs message content: read the session with withText: true");
  }
}

/** The latest context_edit of each target among the selected entries, by target id. */
function contextEdits(selected: readonly Entry[]): Map<string, Entry> {
  const edits = new Map<string, Entry>();
  for (let i = 0; i < selected.length; i++) {
    const entry = selected[i] as Entry;
    if (entry.type === "context_edit" && typeof entry.raw["targetId"] === "string") edits.set(entry.raw["targetId"], entry);
  }
  return edits;
}

/** The one walk of Pi's context rule (selection, the newest compaction only, edits applied), message by message. */
function visitContext(session: Session, sink: ContextSink): void {
  checkLoaded(session);
  const selected = contextEntries(session.lineage);
  const edits = contextEdits(selected);
  for (let i = 0; i < selected.length; i++) {
    const entry = selected[i] as Entry;
    // Only the newest compaction (first in the selection) contributes; an older one kept in range is silent.
    if (entry.type === "compaction" && i > 0) continue;
    const edit = edits.get(entry.id);
    const messages = edit === undefined ? entryMessages(entry) : applyEdit(entryMessages(entry), edit);
    for (const message of messages) sink.message(entry, roleOf(message), message, edit?.id);
  }
}

/** A class, not a closure per call: its method keeps its optimized code across a full GC (the hook's path). */
class ItemSink implements ContextSink {
  readonly items: ContextItem[] = [];
  message(entry: Entry, role: string, message: Message, editId: string | undefined): void {
    this.items.push(editId === undefined ? { entry, role, message } : { entry, role, message, editId });
  }
}

/** The model context Pi builds for the session's active leaf, one item per message. */
export function contextView(session: Session): ContextItem[] {
  const sink = new ItemSink();
  visitContext(session, sink);
  return sink.items;
}

/**
 * The context's messages as the entry position and role of each, in order: what a cut weighs, without
 * an object per message. On a 1 GB session whose context is its whole lineage, ≈5 bytes a message
 * instead of the items' ≈50 (`contextView` holds each message's entry and content).
 */
export interface ContextRoles {
  readonly positions: Int32Array;
  readonly roles: readonly string[];
}

/** `contextView` as positions and roles only (see ContextRoles): the same messages, in the same order. */
export function contextRoles(session: Session): ContextRoles {
  const listed = listRoles(session);
  return { positions: listed.positions, roles: listed.roles };
}

/** Positions written by the context roles listed in it so far (`used`), in a buffer that grows by doubling. */
interface PositionBuffer {
  buffer: Int32Array;
  used: number;
}

/**
 * `contextRoles` of one read of a session, carried to the next read of it (`contextRolesGrown`): the
 * lineage it was listed from and the selection's edits, so a later read that only appended entries to
 * that lineage lists just their messages.
 */
export class GrowingContextRoles implements ContextRoles {
  readonly positions: Int32Array;
  readonly roles: readonly string[];
  /** true when made from an earlier read's (only the entries appended since were read); false: listed whole. */
  readonly grown: boolean;
  /** The lineage's entries listed, as they were: their count (an update of a read extends its lineage array in place). */
  readonly #lineage: readonly Entry[];
  readonly #lineageLength: number;
  readonly #edits: ReadonlyMap<string, Entry>;
  readonly #positions: PositionBuffer;

  constructor(roles: readonly string[], grown: boolean, lineage: readonly Entry[], edits: ReadonlyMap<string, Entry>, positions: PositionBuffer) {
    this.positions = positions.buffer.subarray(0, roles.length);
    this.roles = roles;
    this.grown = grown;
    this.#lineage = lineage;
    this.#lineageLength = lineage.length;
    this.#edits = edits;
    this.#positions = positions;
  }

  /**
   * The roles of `session`, whose lineage holds this one's entries first (the same objects: a later read of
   * the same file) followed only by entries that change no earlier message (neither a compaction, which
   * starts a new selection, nor a context_edit, which edits an earlier entry); undefined otherwise.
   */
  grownTo(session: Session): GrowingContextRoles | undefined {
    const was = this.#lineage;
    const listed = this.#lineageLength;
    const lineage = session.lineage;
    if (lineage.length < listed) return undefined;
    if (lineage !== was) for (let i = listed - 1; i >= 0; i--) if (lineage[i] !== was[i]) return undefined;
    for (let i = listed; i < lineage.length; i++) {
      const type = (lineage[i] as Entry).type;
      if (type === "compaction" || type === "context_edit") return undefined;
    }
    // The positions after this one's are written in place when no later list wrote there, else in a copy.
    let positions = this.#positions;
    if (positions.used !== this.roles.length) positions = { buffer: positions.buffer.slice(0, Math.max(1024, this.roles.length)), used: this.roles.length };
    const roles = this.roles.slice();
    appendRoles(lineage, listed, this.#edits, positions, roles);
    return new GrowingContextRoles(roles, true, lineage, this.#edits, positions);
  }
}

/**
 * `contextRoles` of `session` carried on from `earlier` (an earlier read's, see `GrowingContextRoles.grownTo`)
 * when it applies, else listed whole: the same positions and roles either way.
 */
export function contextRolesGrown(session: Session, earlier?: GrowingContextRoles): GrowingContextRoles {
  checkLoaded(session);
  return earlier?.grownTo(session) ?? listRoles(session);
}

function listRoles(session: Session): GrowingContextRoles {
  checkLoaded(session);
  const selected = contextEntries(session.lineage);
  const edits = contextEdits(selected);
  const positions: PositionBuffer = { buffer: new Int32Array(1024), used: 0 };
  const roles: string[] = [];
  appendRoles(selected, 0, edits, positions, roles);
  return new GrowingContextRoles(roles, false, session.lineage, edits, positions);
}

/**
 * The roles of the messages of `selected` from `from` on, appended to `roles` and their entries' positions
 * to `positions`. Only the newest compaction (first in the selection) contributes.
 */
function appendRoles(selected: readonly Entry[], from: number, edits: ReadonlyMap<string, Entry>, positions: PositionBuffer, roles: string[]): void {
  for (let i = from; i < selected.length; i++) {
    const entry = selected[i] as Entry;
    if (entry.type === "compaction" && i > 0) continue;
    const count = entryRoles(entry);
    // An edit keeps its target's messages (and roles) unless it removes them (`applyEdit`).
    if (count === 0 || removedByEdit(edits.get(entry.id))) continue;
    for (let k = 0; k < count; k++) {
      const at = roles.length;
      if (at === positions.buffer.length) {
        const grown = new Int32Array(at * 2);
        grown.set(positions.buffer);
        positions.buffer = grown;
      }
      positions.buffer[at] = entry.position;
      positions.used = at + 1;
      roles.push(k === 0 ? ROLES[0] : ROLES[1]);
    }
  }
}
