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
  walkLeaves(out, data, "", 0);
  return out;
}

/**
 * `stringLeaves`' walk, a function of the module rather than a closure made per call: the compaction hook
 * reads every custom entry this way, and optimized code that inlined a per-call closure is thrown away
 * once a full GC frees that closure.
 */
function walkLeaves(out: Map<string, string>, value: unknown, path: string, depth: number): void {
  if (out.size >= MAX_LEAVES) return;
  if (typeof value === "string") {
    if (value.trim().length > 0 && !out.has(path)) out.set(path, value);
    return;
  }
  if (depth >= MAX_DEPTH) return;
  if (Array.isArray(value)) for (const item of value) walkLeaves(out, item, `${path}[]`, depth + 1);
  else if (isRecord(value)) for (const [k, v] of Object.entries(value)) walkLeaves(out, v, `${path}.${k}`, depth + 1);
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

function userText(entryBlocks: readonly Block[]): { text: string; index: number; turn: number } | null {
  const blocks = entryBlocks.filter((b) => b.kind === "user");
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

/** A custom entry met before an assistant answer: a prompt it may hold, read once the pairings are known. */
interface Candidate {
  readonly type: string;
  readonly leaves: Map<string, string>;
  /** The answer's first block (#N and turn), or undefined when it has none. */
  readonly at: { readonly index: number; readonly turn: number } | undefined;
}

/**
 * The pairings of custom entries with the message after them, taken one custom entry at a time as the
 * branch is read in order: the one rule for a whole branch (`lostPrompts`) and a streamed one
 * (`createSaidAlong`), which then holds only the pairings and candidates, never the branch.
 */
class PromptPairing {
  /**
   * One instance kept as long as the class. An instance's shape (V8's map once the constructor's fields
   * are added) is reached from the class only through weak transitions: with no instance alive a full GC
   * frees it, and the optimized code of every function that met it is thrown away and compiled again on
   * the next call (the compaction hook's, after each collection between compactions).
   */
  static readonly shapeKept = new PromptPairing();
  private readonly paired = new Map<string, number>();
  private readonly matched = new Map<string, number>();
  private readonly candidates: Candidate[] = [];

  /** `entry` (custom) followed by `next`, the branch's next message, with its blocks; undefined: none follows. */
  pair(entry: Entry, next: Entry | undefined, blocksOfNext: readonly Block[]): void {
    const type = typeof entry.raw["customType"] === "string" ? entry.raw["customType"] : "";
    const r = next === undefined ? undefined : role(next);
    if (next === undefined || (r !== "user" && r !== "assistant")) return;
    const leaves = stringLeaves(entry.raw["data"]);
    if (leaves.size === 0) return;
    if (r === "assistant") {
      const first = blocksOfNext[0];
      this.candidates.push({ type, leaves, at: first === undefined ? undefined : { index: first.index, turn: first.turn } });
      return;
    }
    const said = userText(blocksOfNext);
    if (said === null) return;
    this.paired.set(type, (this.paired.get(type) ?? 0) + 1);
    for (const [field, value] of leaves) {
      if (carries(value, said.text)) this.matched.set(`${type}\u0000${field}`, (this.matched.get(`${type}\u0000${field}`) ?? 0) + 1);
    }
  }

  /** The candidates whose field carried the user message every time one followed (at least twice). */
  prompts(): UserStatement[] {
    const out: UserStatement[] = [];
    for (const c of this.candidates) {
      const n = this.paired.get(c.type) ?? 0;
      if (n < PROMPT_FIELD_MIN_PAIRS) continue;
      let text: string | null = null;
      for (const [field, value] of c.leaves) {
        if (this.matched.get(`${c.type}\u0000${field}`) === n && (text === null || value.length > text.length)) text = value;
      }
      if (text !== null && c.at !== undefined) out.push({ text, turn: c.at.turn, index: c.at.index });
    }
    return out;
  }
}

/**
 * Prompts recorded by an extension's custom entry that never became a user message (see the file comment).
 * The blocks of an entry come from `blocksOf(state, entry)`, a function that lives as long as the module
 * (never a closure made per call: optimized code that inlined one is thrown away once a GC frees it).
 */
function lostPrompts<S>(path: readonly Entry[], state: S, blocksOf: (state: S, entry: Entry) => readonly Block[]): UserStatement[] {
  const pairing = new PromptPairing();
  for (let i = 0; i < path.length; i++) {
    const entry = path[i] as Entry;
    if (entry.type !== "custom") continue;
    const next = nextMessage(path, i);
    pairing.pair(entry, next, next === undefined ? [] : blocksOf(state, next));
  }
  return pairing.prompts();
}

/** `blocksOf` of `saidAlong`: the caller's lookup called. */
const callLookup = (lookup: BlocksOfEntry, entry: Entry): readonly Block[] => lookup(entry);

/** Bare messages left out, in #N order: what both readings of the branch return. */
function spoken(prompts: UserStatement[]): UserStatement[] {
  return prompts.filter((s) => !isBareMessage(s.text)).sort((a, b) => a.index - b.index);
}

/**
 * Prompts the branch holds only in an extension's custom entry, never as a user message (see the file
 * comment), in #N order. Bare messages (acknowledgements, bare commands) are left out as everywhere else.
 */
export function saidElsewhere(session: Session): UserStatement[] {
  return spoken(lostPrompts(branchPath(session), session, blocksOfEntry));
}

/**
 * `saidElsewhere` on a branch given as its entries in order and a lookup of their blocks: how a streamed
 * read, which never holds the whole session, asks the same question (it keeps the branch's custom entries
 * and its messages' roles and blocks; see `createSaidAlong`).
 */
export function saidAlong(path: readonly Entry[], blocksOf: BlocksOfEntry): UserStatement[] {
  return spoken(lostPrompts(path, blocksOf, callLookup));
}

/** `saidAlong` over a branch fed entry by entry (a streamed read), keeping only what it reads. */
export interface SaidAlongCollector {
  /** The branch's next entry, in order, with its blocks. */
  add(entry: Entry, blocks: readonly Block[]): void;
  /** `saidAlong` over what was added. */
  statements(): UserStatement[];
}

/**
 * `saidAlong` read as the branch streams by: the custom entries since the last message wait for the next
 * message (the one `nextMessage` finds: other entries are skipped), which settles them at once. Memory
 * holds those few waiting entries and the pairings, not the branch: on a 1 GB session the earlier
 * collector, which kept every message's role and blocks to the end, held ≈0.5 GB.
 */
export function createSaidAlong(): SaidAlongCollector {
  const pairing = new PromptPairing();
  let waiting: Entry[] = [];
  return {
    add(entry, entryBlocks) {
      if (entry.type === "custom") {
        waiting.push(entry);
        return;
      }
      if (entry.type !== "message" || waiting.length === 0) return;
      for (const custom of waiting) pairing.pair(custom, entry, entryBlocks);
      waiting = [];
    },
    statements: () => {
      // Custom entries no message follows pair with nothing (as `nextMessage` finds none for them).
      for (const custom of waiting) pairing.pair(custom, undefined, []);
      waiting = [];
      return spoken(pairing.prompts());
    },
  };
}
