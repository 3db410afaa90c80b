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

/** A custom entry met before an assistant answer: a prompt it may hold, read once the pairings are known. */
interface Candidate {
  readonly type: string;
  readonly leaves: Map<string, string>;
  /** The answer's first block (#N and turn), or undefined when it has none. */
  readonly at: { readonly index: number; readonly turn: number } | undefined;
}

/**
 * The pairings of custom entries with the message after them, taken one custom entry at a time as the
 * branch is read in order (`readEntry`): the one rule for a whole branch, one read on as it grows and a streamed one
 * (`createSaidAlong`), which then holds only the pairings and candidates, never the branch.
 */
export class PromptPairing {
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
 * The branch's next entry read into `pairing`: a custom entry waits (in `held`, the custom entries no
 * message followed yet) for the branch's next message (entries of other types are skipped), which
 * settles every waiting one (`pair`). Returns those left waiting. The blocks of an entry come from
 * `blocksOf(state, entry)`, a function that lives as long as the module (never a closure made per call:
 * optimized code that inlined one is thrown away once a GC frees it).
 */
function readEntry<S>(entry: Entry, pairing: PromptPairing, held: Entry[], state: S, blocksOf: (state: S, entry: Entry) => readonly Block[]): Entry[] {
  if (entry.type === "custom") held.push(entry);
  else if (entry.type === "message" && held.length > 0) {
    const blocks = blocksOf(state, entry);
    for (const custom of held) pairing.pair(custom, entry, blocks);
    return [];
  }
  return held;
}

/** `path` read on from entry `from` (`readEntry`); custom entries no message follows are left waiting (`pair` takes none). */
function readOn<S>(path: readonly Entry[], from: number, pairing: PromptPairing, waiting: Entry[], state: S, blocksOf: (state: S, entry: Entry) => readonly Block[]): Entry[] {
  let held = waiting;
  for (let i = from; i < path.length; i++) held = readEntry(path[i] as Entry, pairing, held, state, blocksOf);
  return held;
}

/** `blocksOf` of `saidAlong`: the caller's lookup called. */
const callLookup = (lookup: BlocksOfEntry, entry: Entry): readonly Block[] => lookup(entry);

/** `blocksOf` of `createSaidAlong`: the blocks the stream gave with the entry. */
const givenBlocks = (blocks: readonly Block[]): readonly Block[] => blocks;

/** Bare messages left out, in #N order: what both readings of the branch return. */
function spoken(prompts: UserStatement[]): UserStatement[] {
  return prompts.filter((s) => !isBareMessage(s.text)).sort((a, b) => a.index - b.index);
}

/**
 * Prompts the branch holds only in an extension's custom entry, never as a user message (see the file
 * comment), in #N order. Bare messages (acknowledgements, bare commands) are left out as everywhere else.
 */
export function saidElsewhere(session: Session): UserStatement[] {
  return saidElsewhereOn(session).said;
}

/**
 * `saidElsewhere` on a branch given as its entries in order and a lookup of their blocks: how a streamed
 * read, which never holds the whole session, asks the same question (it keeps the branch's custom entries
 * and its messages' roles and blocks; see `createSaidAlong`).
 */
export function saidAlong(path: readonly Entry[], blocksOf: BlocksOfEntry): UserStatement[] {
  const pairing = new PromptPairing();
  readOn(path, 0, pairing, [], blocksOf, callLookup);
  return spoken(pairing.prompts());
}

/**
 * What `saidElsewhereOn` read of a branch: the pairings of its first `read` entries (the last of them
 * `last`) and the custom entries among them still waiting for a message. Read on (and changed) by the
 * next call whose branch holds `last` at the same place, so it is handed from one call to the next only.
 */
export interface SaidCarry {
  readonly read: number;
  readonly last: Entry | undefined;
  readonly pairing: PromptPairing;
  readonly waiting: Entry[];
}

/**
 * `saidElsewhere`, read on from `carry` (what an earlier call on the same branch read) over the entries
 * the branch gained since: a session read again as a turn appends to it pays for what was appended. The
 * branch is the carry's when it holds the carry's last entry (the same object: a read's entries are kept
 * by the reads after it) at the same place, root first, so the entries before it are the same; otherwise
 * it is read whole. The carry is changed and handed on in the result: pass a carry to one call only.
 */
export function saidElsewhereOn(session: Session, carry?: SaidCarry): { said: UserStatement[]; carry: SaidCarry } {
  const path = branchPath(session);
  const goesOn = carry !== undefined && carry.read <= path.length && (carry.read === 0 || path[carry.read - 1] === carry.last);
  const pairing = goesOn ? carry.pairing : new PromptPairing();
  const waiting = readOn(path, goesOn ? carry.read : 0, pairing, goesOn ? carry.waiting : [], session, blocksOfEntry);
  return { said: spoken(pairing.prompts()), carry: { read: path.length, last: path[path.length - 1], pairing, waiting } };
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
 * message (other entries are skipped), which settles them at once (`readEntry`). Memory
 * holds those few waiting entries and the pairings, not the branch: on a 1 GB session the earlier
 * collector, which kept every message's role and blocks to the end, held ≈0.5 GB.
 */
export function createSaidAlong(): SaidAlongCollector {
  const pairing = new PromptPairing();
  let waiting: Entry[] = [];
  return {
    add(entry, entryBlocks) {
      waiting = readEntry(entry, pairing, waiting, entryBlocks, givenBlocks);
    },
    statements: () => {
      // Custom entries no message follows pair with nothing.
      for (const custom of waiting) pairing.pair(custom, undefined, []);
      waiting = [];
      return spoken(pairing.prompts());
    },
  };
}
