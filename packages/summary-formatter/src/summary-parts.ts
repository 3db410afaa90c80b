// A summary's parts prepared at a turn's end, reused by the compaction hook: each step of building a
// summary from facts (a section's items made from a facts list, merged with the earlier summaries,
// capped, rendered and sized) is kept under its slot with the inputs it was made of, compared by
// identity. Facts lists a turn did not change keep their identity (the caller shares them with the
// previous snapshot), so a turn's end remakes only the parts of lists that changed, and the hook remakes
// only the parts whose inputs it changed itself (the kept tail's statements, the brief, the footer).
//
// Only `prepareSummaryParts` writes: while the hook runs, parts are read, and what the hook makes is dropped
// with it, so a hook never finds work of an earlier hook (a benchmark timing the hook again and again
// times what one hook does after a turn's end). Without parts (a compaction from scratch) every step
// runs. Every step is pure and nothing it returns is mutated later, so a reused part is the part that
// would be made again: the output is the same byte for byte.

import type { SaidCarry } from "@context-fold/extractors";
import type { CutCarry } from "./plan-cut.js";
import { utf8Bytes } from "./tokens.js";

/** The steps kept, one slot each. */
export const SLOT = {
  goal: 0,
  corrections: 1,
  scopeChanges: 2,
  said: 3,
  statements: 4,
  preferenceItems: 5,
  preferences: 6,
  files: 7,
  catalog: 8,
  outstanding: 9,
  commits: 10,
  anchors: 11,
  earlierTurns: 12,
  status: 13,
  mergedCorrections: 14,
  mergedScopeChanges: 15,
  unionStatements: 16,
  mergedStatements: 17,
  unionPreferences: 18,
  mergedPreferences: 19,
  mergedFiles: 20,
  mergedCommits: 21,
  mergedTurns: 22,
  mergedPrevious: 23,
  cappedTurns: 24,
  cappedScope: 25,
  cappedPreferences: 26,
  cappedOutstanding: 27,
  cappedStatements: 28,
  verbatim: 29,
  keptTail: 30,
  /** The cut planned for a session read (`prepareCutParts`: the same object, at the same size and leaf, and tail kept). */
  cut: 31,
  /** One slot per section fitted to its share of the budget (fit-budget's SHARED order: 6 sections) from here. */
  shared: 32,
  /** The brief's last lines and their count before, for the summarized window's blocks (by identity); right after the shared slots (fit-budget.ts checks SHARED fits before it). */
  brief: 38,
  /** What the user said and did outside the branch's blocks, for a session read (as `cut`). */
  outside: 39,
  /**
   * Two slots per rendered section (render-brackets' SECTIONS order) from here: the sections before the
   * shares are fitted, then the sections after (`SECTION_BANK` apart).
   */
  section: 40,
  /** The doc's previous summaries with the branch summaries its facts met (`withBranchSummaries`), after the section banks. */
  branchPrevious: 72,
} as const;

/** Slots between a section's two banks (more than the sections there are). */
export const SECTION_BANK = 16;

const SLOTS = SLOT.branchPrevious + 1;

/**
 * Kinds of doc items kept by the facts item each is made of (`itemOf`), and kinds of items whose summary
 * line is kept (`itemLine`): one map per kind, since one object may be rendered by two sections' rules.
 */
export const ITEM = { file: 0, statement: 1, turn: 2 } as const;
export const LINE = { file: 0, statement: 1, turn: 2, commit: 3, outstanding: 4 } as const;
/** Kinds of items merged of two (`mergedOf`). */
export const MERGED = { statement: 0, file: 1 } as const;

/** An item's rendered line and its UTF-8 bytes. */
export interface ItemLine {
  readonly line: string;
  readonly bytes: number;
}

interface Part {
  a: unknown;
  b: unknown;
  c: unknown;
  d: unknown;
  value: unknown;
}

/** The parts of one session's summary (held by the caller across turns). */
export class SummaryParts {
  readonly slots: (Part | undefined)[] = new Array<Part | undefined>(SLOTS).fill(undefined);
  /** The digest's line of each item (an artifact or a statement of the facts), with its UTF-8 bytes. */
  readonly lines = new WeakMap<object, ItemLine>();
  /**
   * The brief lines (without a failure mark) the last prepared brief built, by block: the next turn's
   * brief holds most of them again (its window grew at its end). Replaced by each prepared brief's own, so
   * it holds at most one brief's lines; only a prepare writes it.
   */
  briefLines: Map<object, string> = new Map();
  /**
   * Doc items by the facts item each was made of (a file's fact, a statement's, a turn's line), per kind
   * (`ITEM`): facts items a turn did not change keep their identity (extractors hand the same frozen
   * object out again), so their doc items do too, and the lines kept by item are found. Only a prepare writes.
   */
  readonly items: readonly WeakMap<object, unknown>[] = [new WeakMap(), new WeakMap(), new WeakMap()];
  /**
   * Items merged of two (an earlier summary's and the facts' one of the same statement or file), per kind
   * (`MERGED`), by the first, with the second they were last merged with. Only a prepare writes.
   */
  readonly merged: readonly WeakMap<object, { readonly with: object; readonly item: unknown }>[] = [new WeakMap(), new WeakMap()];
  /** Each doc item's summary line with its UTF-8 bytes, per section kind (`LINE`). Only a prepare writes. */
  readonly itemLines: readonly WeakMap<object, ItemLine>[] = [new WeakMap(), new WeakMap(), new WeakMap(), new WeakMap(), new WeakMap()];
  /** What the last prepare's cut carries to the next (`planCutCarried`): only a prepare reads or writes it. */
  cutCarry: CutCarry | undefined = undefined;
  /** What the last prepare read of the branch for `saidElsewhereOn`, read on by the next: only a prepare reads or writes it. */
  saidCarry: SaidCarry | undefined = undefined;
  /** Times a part was made while preparing (a turn's end), and found (while preparing or building). */
  made = 0;
  found = 0;
}

/** The parts in use, and whether the step running may keep what it makes (only while preparing). */
let active: SummaryParts | undefined;
let writable = false;
/**
 * Counts builds (`enterParts` calls). Caches that live within one build (the section sizes a budget fit
 * measures again and again) keep the build they were made in, so no build finds another's work.
 */
let build = 0;

/** The build running (see `build`). */
export function currentBuild(): number {
  return build;
}

/** Builds entered and not yet left (`enterParts` in `enterParts`, e.g. a summary built for a digest). */
let depth = 0;
/** Caches made by `buildCache` so far (each has its slot in `current`). */
let cacheSlots = 0;
/** The caches of the builds running, made afresh when the outermost one starts; undefined between builds. */
let current: (Map<object, unknown> | undefined)[] | undefined;

/** A cache that lives within one build (see `buildCache`). */
export interface BuildCache<V> {
  get(key: object): V | undefined;
  /** Kept until the build ends; nothing is kept while no build runs. */
  set(key: object, value: V): void;
}

/**
 * A cache that lives within builds only (`enterParts` … `leaveParts`): its maps are made when the
 * outermost build starts and dropped when it ends, so nothing a build makes is reachable after it, and
 * no map outlives a build. Neither a module-level WeakMap nor a module-level Map emptied per build: V8's
 * young-generation GC (scavenge) holds a WeakMap's values strongly, and a long-lived map's table sits in
 * the old generation, where the young objects a build put in it (even in a table emptied since) are kept
 * through scavenges until a full GC finds the table dead, promoted with all they hold. Measured on
 * 2026-12-02 on the bench's ≈4 MB session: ~2 MB of section sizes promoted per scavenge, scavenges of
 * 3-35 ms, and full GCs marking that garbage on V8's helper threads while later hooks ran; with the maps
 * of each build: nothing promoted, scavenges of ~1 ms.
 */
export function buildCache<V>(): BuildCache<V> {
  const slot = cacheSlots++;
  return {
    get: (key) => current?.[slot]?.get(key) as V | undefined,
    set: (key, value) => {
      if (current === undefined) return;
      let map = current[slot];
      if (map === undefined) current[slot] = map = new Map<object, unknown>();
      map.set(key, value);
    },
  };
}

/** What `enterParts` replaced, for `leaveParts`. */
export interface PartsScope {
  readonly parts: SummaryParts | undefined;
  readonly writable: boolean;
}

/**
 * Put `parts` in use until `leaveParts`: read only (the hook) or kept (`prepareSummaryParts`). A pair of
 * calls, not a callback: the hook's path makes no closure per call (one would be compiled again after
 * every full GC).
 */
export function enterParts(parts: SummaryParts | undefined, keepMade: boolean): PartsScope {
  const was: PartsScope = { parts: active, writable };
  active = parts;
  writable = keepMade && parts !== undefined;
  build += 1;
  if (depth === 0) current = [];
  depth += 1;
  return was;
}

/** Put back what `enterParts` replaced (call it in a `finally`). */
export function leaveParts(was: PartsScope): void {
  active = was.parts;
  writable = was.writable;
  depth -= 1;
  if (depth === 0) current = undefined;
}

/** The part kept at `slot` when made of the same inputs (by identity), else undefined. */
export function reuse(slot: number, a: unknown, b?: unknown, c?: unknown, d?: unknown): unknown {
  const part = active?.slots[slot];
  if (part === undefined || part.a !== a || part.b !== b || part.c !== c || part.d !== d) return undefined;
  if (active !== undefined) active.found += 1;
  return part.value;
}

/** The part kept at `slot` whatever its inputs (a base to make a new one from, compared item by item), else undefined. */
export function heldAt(slot: number): unknown {
  return active?.slots[slot]?.value;
}

/** `value`, kept at `slot` with its inputs while preparing. */
export function keep<T>(slot: number, value: T, a: unknown, b?: unknown, c?: unknown, d?: unknown): T {
  if (writable && active !== undefined) {
    active.slots[slot] = { a, b, c, d, value };
    active.made += 1;
  }
  return value;
}

/**
 * `keep`, but the part already at `slot` when it lists the same items as `value` (each by identity, in
 * order): a list remade from inputs that changed (e.g. the preferences left after the statements, which
 * change with every user message) keeps its identity while its items did not change, so the parts made of
 * it (merged, capped, rendered, sized) are reused. The part found is equal to `value` item for item and
 * never mutated, so the output is the same; in the hook (nothing kept) it is read, as `reuse` reads.
 */
export function keepSame<T>(slot: number, value: readonly T[], a: unknown, b?: unknown, c?: unknown, d?: unknown): readonly T[] {
  const held = active?.slots[slot]?.value;
  return keep(slot, Array.isArray(held) && sameItems(held as readonly T[], value) ? (held as readonly T[]) : value, a, b, c, d);
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Are the parts in use kept (`prepareSummaryParts`, `prepareCutParts`)? */
export function preparing(): boolean {
  return writable && active !== undefined;
}

/** What a prepare carries to the next: the cut (`CutCarry`), and what `saidElsewhereOn` read of the branch. */
interface Carries {
  readonly cutCarry: CutCarry;
  readonly saidCarry: SaidCarry;
}

/** What the last prepare carried under `key` (taken over: it is read on and changed), while preparing only. */
export function takeCarry<K extends keyof Carries>(key: K): Carries[K] | undefined {
  if (!writable || active === undefined) return undefined;
  const carry = active[key] as Carries[K] | undefined;
  active[key] = undefined;
  return carry;
}

/** `carry`, kept under `key` for the next prepare while preparing. */
export function keepCarry<K extends keyof Carries>(key: K, carry: Carries[K]): void {
  if (writable && active !== undefined) (active as { [P in keyof Carries]: Carries[P] | undefined })[key] = carry;
}

/** The brief lines being kept by the brief a prepare is building (see `SummaryParts.briefLines`). */
let briefMade: Map<object, string> | undefined;

/** The unmarked brief line of `block` the last prepared brief built, if any. */
export function preparedBriefLine(block: object): string | undefined {
  return active?.briefLines.get(block);
}

/** `line`, kept as `block`'s unmarked brief line while a prepare builds its brief. */
export function keepBriefLine(block: object, line: string): string {
  briefMade?.set(block, line);
  return line;
}

/** While preparing, start keeping the brief lines of the brief about to be built. */
export function startBriefLines(): void {
  briefMade = writable && active !== undefined ? new Map() : undefined;
}

/** While preparing, the brief lines kept since `startBriefLines` replace the last prepare's. */
export function endBriefLines(): void {
  if (briefMade !== undefined && writable && active !== undefined) active.briefLines = briefMade;
  briefMade = undefined;
}

/** The digest line of `item` prepared at a turn's end, if any. */
export function preparedLine(item: object): ItemLine | undefined {
  return active?.lines.get(item);
}

/** `line`, kept as `item`'s digest line while preparing. */
export function keepLine(item: object, line: ItemLine): ItemLine {
  if (writable && active !== undefined) active.lines.set(item, line);
  return line;
}

/**
 * The doc item `make(fact)` of kind `kind` (`ITEM`): the one a prepare made of the same facts item, else
 * made now (and kept while preparing). `make` is a pure function of the facts item alone (a function of
 * the module), and facts items are frozen, so the item found is the one it would make.
 */
export function itemOf<F extends object, T>(kind: number, fact: F, make: (fact: F) => T): T {
  const held = active?.items[kind]?.get(fact) as T | undefined;
  if (held !== undefined) return held;
  const made = make(fact);
  if (writable && active !== undefined) active.items[kind]?.set(fact, made);
  return made;
}

/** Lines made within the build running by item, per kind (`LINE`): the hook keeps nothing, yet measures a section again and again. */
const buildLines = [buildCache<ItemLine>(), buildCache<ItemLine>(), buildCache<ItemLine>(), buildCache<ItemLine>(), buildCache<ItemLine>()];

/**
 * `item`'s summary line by `line` (a pure function of the item, of the module) with its UTF-8 bytes: the
 * one a prepare made (doc items are never changed once made), else one made in this build, else made now
 * and kept (by the parts while preparing, else for the build).
 */
export function itemLine<T extends object>(kind: number, item: T, line: (item: T) => string): ItemLine {
  const held = active?.itemLines[kind]?.get(item) ?? buildLines[kind]?.get(item);
  if (held !== undefined) return held;
  const text = line(item);
  const made: ItemLine = { line: text, bytes: utf8Bytes(text) };
  if (writable && active !== undefined) active.itemLines[kind]?.set(item, made);
  else buildLines[kind]?.set(item, made);
  return made;
}

/**
 * The item `merge(a, b)` of kind `kind` (`MERGED`): the one a prepare made of the same two items, else
 * made now (and kept while preparing). `merge` is a pure function of the two (a function of the module)
 * and doc items are never changed once made, so the item found is the one it would make; an item kept
 * by identity keeps what is kept by it (its line).
 */
export function mergedOf<A extends object, B extends object, T>(kind: number, a: A, b: B, merge: (a: A, b: B) => T): T {
  const held = active?.merged[kind]?.get(a);
  if (held !== undefined && held.with === b) return held.item as T;
  const made = merge(a, b);
  if (writable && active !== undefined) active.merged[kind]?.set(a, { with: b, item: made });
  return made;
}