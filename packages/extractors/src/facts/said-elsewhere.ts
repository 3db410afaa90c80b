// Prompts that never became a user message. Some extensions record each prompt in a `custom` entry
// before it is sent; when the file then has an assistant answer with no user message before it (a
// compaction run between the prompt and the turn, say), the prompt survives only in that entry. A field
// of such an entry counts as the prompt only when, in this very session, the same field of the same
// customType equals the user message that follows it every time one does (at least twice): learned from
// the file, never from a field's name. Read along the branch, across a damaged line (`branchPath`).
import { type Block, blocksOfEntry, type Entry, type Session } from "@context-fold/ledger-reader";
import type { UserStatement } from "./types.js";
import { branchPath } from "./cut-off-blocks.js";
import { isBareMessage } from "./user-text.js";

/** Pairings (custom entry → the user message after it) a field must match before it is read as a prompt. */
export const PROMPT_FIELD_MIN_PAIRS = 2;
/** A prefix this long (after whitespace is collapsed) may stand for the whole prompt (a clipped preview). */
const PREFIX_MIN = 16;
/** String leaves read per custom entry, and how deep: an extension's state can be large. */
const MAX_LEAVES = 256;
const MAX_DEPTH = 4;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function role(entry: Entry): string | undefined {
  const message = entry.raw["message"];
  return entry.type === "message" && isRecord(message) && typeof message["role"] === "string" ? message["role"] : undefined;
}

/** Every run of whitespace one space, trimmed: how a one-line preview of a prompt is compared with it. */
function collapse(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/** The string leaves of an entry's data, by path (`a.b`, arrays as `[]`), bounded. */
function stringLeaves(data: unknown): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (value: unknown, path: string, depth: number): void => {
    if (out.size >= MAX_LEAVES) return;
    if (typeof value === "string") {
      if (value.trim().length > 0 && !out.has(path)) out.set(path, value);
      return;
    }
    if (depth >= MAX_DEPTH) return;
    if (Array.isArray(value)) for (const item of value) walk(item, `${path}[]`, depth + 1);
    else if (isRecord(value)) for (const [k, v] of Object.entries(value)) walk(v, `${path}.${k}`, depth + 1);
  };
  walk(data, "", 0);
  return out;
}

/** Does `field` carry `said` (equal once whitespace is collapsed, or a long enough prefix of it)? */
function carries(field: string, said: string): boolean {
  const f = collapse(field);
  const s = collapse(said);
  if (f === s) return true;
  const stem = f.replace(/(?:…|\.\.\.)$/, "").trimEnd();
  return stem.length >= PREFIX_MIN && s.startsWith(stem);
}

/** An entry's blocks: from a whole read (`blocksOfEntry`) or from a streamed read that kept them. */
export type BlocksOfEntry = (entry: Entry) => readonly Block[];

function userText(blocksOf: BlocksOfEntry, entry: Entry): { text: string; index: number; turn: number } | null {
  const blocks = blocksOf(entry).filter((b) => b.kind === "user");
  const first = blocks[0];
  return first === undefined ? null : { text: blocks.map((b) => b.text).join("\n"), index: first.index, turn: first.turn };
}

/** The next entry after `i` that is a message (user, assistant, tool result, …), skipping state and custom messages. */
function nextMessage(path: readonly Entry[], i: number): Entry | undefined {
  for (let j = i + 1; j < path.length; j++) {
    const e = path[j] as Entry;
    if (e.type === "message") return e;
  }
  return undefined;
}

/** Prompts recorded by an extension's custom entry that never became a user message (see the file comment). */
function lostPrompts(blocksOf: BlocksOfEntry, path: readonly Entry[]): UserStatement[] {
  const paired = new Map<string, number>();
  const matched = new Map<string, number>();
  const candidates: { type: string; leaves: Map<string, string>; answer: Entry }[] = [];
  for (let i = 0; i < path.length; i++) {
    const entry = path[i] as Entry;
    if (entry.type !== "custom") continue;
    const type = typeof entry.raw["customType"] === "string" ? entry.raw["customType"] : "";
    const next = nextMessage(path, i);
    const r = next === undefined ? undefined : role(next);
    if (next === undefined || (r !== "user" && r !== "assistant")) continue;
    const leaves = stringLeaves(entry.raw["data"]);
    if (leaves.size === 0) continue;
    if (r === "assistant") {
      candidates.push({ type, leaves, answer: next });
      continue;
    }
    const said = userText(blocksOf, next);
    if (said === null) continue;
    paired.set(type, (paired.get(type) ?? 0) + 1);
    for (const [field, value] of leaves) {
      if (carries(value, said.text)) matched.set(`${type}\u0000${field}`, (matched.get(`${type}\u0000${field}`) ?? 0) + 1);
    }
  }
  const out: UserStatement[] = [];
  for (const c of candidates) {
    const n = paired.get(c.type) ?? 0;
    if (n < PROMPT_FIELD_MIN_PAIRS) continue;
    let text: string | null = null;
    for (const [field, value] of c.leaves) {
      if (matched.get(`${c.type}\u0000${field}`) === n && (text === null || value.length > text.length)) text = value;
    }
    const first = blocksOf(c.answer)[0];
    if (text !== null && first !== undefined) out.push({ text, turn: first.turn, index: first.index });
  }
  return out;
}

/**
 * Prompts the branch holds only in an extension's custom entry, never as a user message (see the file
 * comment), in #N order. Bare messages (acknowledgements, bare commands) are left out as everywhere else.
 */
export function saidElsewhere(session: Session): UserStatement[] {
  return saidAlong(branchPath(session), (entry) => blocksOfEntry(session, entry));
}

/**
 * `saidElsewhere` on a branch given as its entries in order and a lookup of their blocks: how a streamed
 * read, which never holds the whole session, asks the same question (it keeps the branch's custom entries
 * and its messages' roles and blocks; see `createSaidAlong`).
 */
export function saidAlong(path: readonly Entry[], blocksOf: BlocksOfEntry): UserStatement[] {
  return lostPrompts(blocksOf, path)
    .filter((s) => !isBareMessage(s.text))
    .sort((a, b) => a.index - b.index);
}

/** `saidAlong` over a branch fed entry by entry (a streamed read), keeping only what it reads. */
export interface SaidAlongCollector {
  /** The branch's next entry, in order, with its blocks. */
  add(entry: Entry, blocks: readonly Block[]): void;
  /** `saidAlong` over what was added. */
  statements(): UserStatement[];
}

/**
 * What `saidAlong` reads of a branch, kept while it streams by: custom entries whole (their data is
 * where a prompt may be), and of each message only its type and role, with a user message's blocks or an
 * answer's first block without its text. Other entries are never read (`nextMessage` skips them).
 */
export function createSaidAlong(): SaidAlongCollector {
  const path: Entry[] = [];
  const blocks = new Map<string, readonly Block[]>();
  return {
    add(entry, entryBlocks) {
      if (entry.type === "custom") {
        path.push(entry);
        return;
      }
      if (entry.type !== "message") return;
      const r = role(entry);
      path.push({ ...entry, raw: { type: entry.raw["type"], message: { role: r } } });
      const user = entryBlocks.filter((b) => b.kind === "user");
      blocks.set(entry.id, user.length > 0 ? user : entryBlocks.slice(0, 1).map((b) => ({ ...b, text: "" })));
    },
    statements: () => saidAlong(path, (entry) => blocks.get(entry.id) ?? []),
  };
}
