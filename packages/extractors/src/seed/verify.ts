// Re-locates every span of a seed index's current view in the session ledger and checks its sha256 and
// extent: the check `context-fold verify` runs and recovery tools rely on.
import { hash } from "node:crypto";
import { anchorBase, LedgerError, resolveAnchor, streamEntries, type Block, type Entry, type Session, type SessionShape } from "@context-fold/ledger-reader";
import {
  blockLog,
  forEachSpan,
  joinTextParts,
  parseAnchor,
  sha256Hex,
  type Span,
  type SpansInFile,
  verifySpanText,
  type FoldIndexRecord,
} from "@context-fold/seed-index-format";

export interface SpanProblem {
  readonly seq: number;
  readonly blockId: string;
  readonly code: string;
  readonly reason: string;
}

export interface SeedVerification {
  /** Spans checked (every span of every record in the current view). */
  readonly spans: number;
  readonly verified: number;
  /** Found in the ledger, but its text no longer matches sha256 or log. */
  readonly mismatched: SpanProblem[];
  /** Not found (or found twice) in the ledger. */
  readonly missing: SpanProblem[];
  /** Spans without sha256 (restored from pre-v2 records): found but served unverified. */
  readonly unverified: SpanProblem[];
}

/** Check the spans of `records` (a current view, see seed-index-format's `currentView`) against `session`. */
export function verifySpans(session: Session, records: readonly FoldIndexRecord[]): SeedVerification {
  let spans = 0;
  let verified = 0;
  const mismatched: SpanProblem[] = [];
  const missing: SpanProblem[] = [];
  const unverified: SpanProblem[] = [];
  for (const record of records) {
    for (const span of record.spans) {
      spans += 1;
      const where = { seq: record.seq, blockId: span.blockId, code: span.code };
      const found = resolveAnchor(session, span.blockId, span.sha256);
      if (found.status === "missing" || found.status === "malformed") {
        missing.push({ ...where, reason: found.reason });
        continue;
      }
      if (found.status === "ambiguous") {
        missing.push({ ...where, reason: `${String(found.candidates.length)} blocks carry this anchor (#${found.candidates.map((b) => b.index).join(", #")})` });
        continue;
      }
      const check = verifySpanText(span, found.text);
      if (check.verified) verified += 1;
      else if (span.sha256 === undefined) unverified.push({ ...where, reason: check.reason ?? "no sha256" });
      else mismatched.push({ ...where, reason: `${check.reason ?? "mismatch"} (block #${String(found.block.index)}, line ${String(found.block.line)})` });
    }
  }
  return { spans, verified, mismatched, missing, unverified };
}

/** A record of a current view, and where its spans are when it holds none (see `readSeedIndexLean`). */
export interface StreamedRecord {
  readonly record: FoldIndexRecord;
  readonly spansInFile?: SpansInFile | undefined;
}

/** 128 bits of sha256(anchor): a block's anchor as four numbers (a wrong match needs a 128-bit collision). */
function anchorKey(anchor: string, out: Uint32Array): void {
  const digest = hash("sha256", anchor, "buffer");
  out[0] = digest.readUInt32LE(0);
  out[1] = digest.readUInt32LE(4);
  out[2] = digest.readUInt32LE(8);
  out[3] = digest.readUInt32LE(12);
}

/** A slot no key holds. */
const EMPTY = -2;

/**
 * The blocks that carry the anchors asked for, each with what a check needs of its text (sha256, log) and
 * where it is (#N, line, entry): flat typed arrays, about 60 bytes a block, where holding the blocks kept
 * their texts. Keys open-addressed by their first 32 bits; a key's blocks chained in file order.
 */
class AnchoredFacts {
  #keys: Uint32Array;
  #first: Int32Array;
  #slots: number;
  #size = 0;
  rows = 0;
  next: Int32Array;
  index: Uint32Array;
  line: Uint32Array;
  entry: Uint32Array;
  bytes: Uint32Array;
  lines: Uint32Array;
  sha: Uint8Array;

  constructor(expected: number) {
    // At most 3/4 full, sized exactly (not to a power of two): on the 1 GB bench session 1.4 M slots, not 2.1 M.
    this.#slots = Math.max(1024, Math.ceil((expected * 4) / 3) + 1);
    this.#keys = new Uint32Array(this.#slots * 4);
    this.#first = new Int32Array(this.#slots).fill(EMPTY);
    const rows = Math.max(16, expected);
    this.next = new Int32Array(rows);
    this.index = new Uint32Array(rows);
    this.line = new Uint32Array(rows);
    this.entry = new Uint32Array(rows);
    this.bytes = new Uint32Array(rows);
    this.lines = new Uint32Array(rows);
    this.sha = new Uint8Array(rows * 32);
  }

  /** The slot holding `key`, or the empty one where it would go. */
  #slot(key: Uint32Array): number {
    let at = (key[0] as number) % this.#slots;
    for (;;) {
      const base = at * 4;
      if (this.#first[at] === EMPTY) return at;
      if (this.#keys[base] === key[0] && this.#keys[base + 1] === key[1] && this.#keys[base + 2] === key[2] && this.#keys[base + 3] === key[3]) return at;
      at = at + 1 === this.#slots ? 0 : at + 1;
    }
  }

  /** Ask for the blocks carrying `key` (before any block is added); returns its slot (final while no more keys than `expected` are asked for). */
  want(key: Uint32Array): number {
    const held = this.#slot(key);
    if (this.#first[held] !== EMPTY) return held;
    if ((this.#size + 1) * 4 > this.#slots * 3) this.#grow();
    const slot = this.#slot(key);
    this.#keys.set(key, slot * 4);
    this.#first[slot] = -1;
    this.#size += 1;
    return slot;
  }

  #grow(): void {
    const keys = this.#keys;
    const first = this.#first;
    const old = this.#slots;
    this.#slots = old * 2;
    this.#keys = new Uint32Array(this.#slots * 4);
    this.#first = new Int32Array(this.#slots).fill(EMPTY);
    const key = new Uint32Array(4);
    for (let i = 0; i < old; i++) {
      if (first[i] === EMPTY) continue;
      key.set(keys.subarray(i * 4, i * 4 + 4));
      const at = this.#slot(key);
      this.#keys.set(key, at * 4);
      this.#first[at] = -1;
    }
  }

  /** Is `key` asked for? Returns its slot, or -1. */
  slotOf(key: Uint32Array): number {
    const at = this.#slot(key);
    return this.#first[at] === EMPTY ? -1 : at;
  }

  /** The first block row of a slot (-1: none), then `next[row]`. */
  firstRow(slot: number): number {
    return this.#first[slot] ?? -1;
  }

  add(slot: number, block: Block, text: string): void {
    if (this.rows === this.index.length) this.#growRows();
    const row = this.rows++;
    this.next[row] = -1;
    this.index[row] = block.index;
    this.line[row] = block.line;
    this.entry[row] = block.entryPosition;
    const log = blockLog(text);
    this.bytes[row] = log.bytes;
    this.lines[row] = log.lines;
    this.sha.set(hash("sha256", text, "buffer"), row * 32);
    // Chained in file order: a block's anchor is nearly always its own, so the walk is rare and short.
    let last = this.#first[slot] ?? -1;
    if (last === -1) this.#first[slot] = row;
    else {
      while ((this.next[last] ?? -1) !== -1) last = this.next[last] ?? -1;
      this.next[last] = row;
    }
  }

  #growRows(): void {
    const rows = Math.ceil(this.index.length * 1.5);
    const grow = <T extends Int32Array | Uint32Array | Float64Array | Uint8Array>(from: T, make: (n: number) => T, per = 1): T => {
      const to = make(rows * per);
      to.set(from);
      return to;
    };
    this.next = grow(this.next, (n) => new Int32Array(n));
    this.index = grow(this.index, (n) => new Uint32Array(n));
    this.line = grow(this.line, (n) => new Uint32Array(n));
    this.entry = grow(this.entry, (n) => new Uint32Array(n));
    this.bytes = grow(this.bytes, (n) => new Uint32Array(n));
    this.lines = grow(this.lines, (n) => new Uint32Array(n));
    this.sha = grow(this.sha, (n) => new Uint8Array(n), 32);
  }

  shaHex(row: number): string {
    return Buffer.from(this.sha.buffer, this.sha.byteOffset + row * 32, 32).toString("hex");
  }
}

/**
 * `verifySpans` for a session read as its shape, with records whose spans may be left in the seed
 * index's file: three streamed passes — the spans' anchors, the ledger (keeping of each block a span
 * names its sha256, log and place, never its text), the spans again, each checked as it goes by — in
 * memory that holds no span and no block text. Same result as `verifySpans` over the whole read.
 * Throws LedgerError LEDGER_CHANGED when the file no longer holds the shape's entries.
 */
export async function verifySpansStreamed(shape: SessionShape, records: readonly StreamedRecord[]): Promise<SeedVerification> {
  return verifyPlannedSpans(planSpanVerification(shape, records));
}

/**
 * What the streamed check needs of the session's shape: entry ids by position (to tell a file replaced
 * between the reads) and the context_edit entries (few). A caller that lets the shape go once it has
 * the plan checks without the shape's entries in memory; nothing of the check is allocated before.
 */
export interface SpanVerificationPlan {
  readonly path: string;
  readonly fragment: boolean;
  /** `idHash` of each entry's id, by position (4 bytes an entry, where the ids held 30 MB on 1 GB). */
  readonly idHashes: Int32Array;
  /** The ids of the entries some context_edit targets, by position (what an `:edit:` span's block is matched by). */
  readonly targets: ReadonlyMap<number, string>;
  /** The context_edit entries `byId` answers for their ids. */
  readonly edits: ReadonlyMap<string, Entry>;
  readonly records: readonly StreamedRecord[];
}

/** FNV-1a over the id's UTF-16 units: tells an entry from another at the same position (as `lineageRoute`). */
function idHash(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h | 0;
}

/** The plan of a streamed check of `records` against `shape`'s session (see SpanVerificationPlan). */
export function planSpanVerification(shape: SessionShape, records: readonly StreamedRecord[]): SpanVerificationPlan {
  const { session } = shape;
  const edits = new Map<string, Entry>();
  const targetIds = new Set<unknown>();
  for (const entry of session.entries) {
    if (entry.type !== "context_edit" || session.byId.get(entry.id) !== entry) continue;
    edits.set(entry.id, entry);
    targetIds.add(entry.raw["targetId"]);
  }
  const entries = session.entries;
  const idHashes = new Int32Array(entries.length);
  const targets = new Map<number, string>();
  for (let i = 0; i < entries.length; i++) {
    const id = (entries[i] as Entry).id;
    idHashes[i] = idHash(id);
    if (targetIds.has(id)) targets.set(i, id);
  }
  return { path: session.path, fragment: session.header.fragment === true, idHashes, targets, edits, records };
}

/** `verifySpansStreamed` from a plan: the shape it was made from need not be held any more. */
export async function verifyPlannedSpans(plan: SpanVerificationPlan): Promise<SeedVerification> {
  const { path, idHashes, targets, edits, records } = plan;
  const key = new Uint32Array(4);
  let asked = 0;
  for (const { record, spansInFile } of records) asked += spansInFile?.count ?? record.spans.length;
  const facts = new AnchoredFacts(asked);
  // Each span's slot, in span order (the check pass meets the spans in the same order): each anchor is
  // hashed once. The table is sized for every span up front, so no slot moves.
  const slots = new Int32Array(asked).fill(-1);
  let at = 0;
  for (const { record, spansInFile } of records) {
    forEachSpan(record, spansInFile, (span) => {
      const base = anchorBase(span.blockId);
      if (base !== undefined) {
        anchorKey(base, key);
        slots[at] = facts.want(key);
      }
      at += 1;
    });
  }
  if (asked > 0) {
    for await (const item of streamEntries(path, plan.fragment ? { fragment: true } : {})) {
      if (item.kind !== "entry") continue;
      const position = item.entry.position;
      if (position >= idHashes.length || idHashes[position] !== idHash(item.entry.id)) {
        throw new LedgerError("LEDGER_CHANGED", path, `entry ${String(position)} is ${item.entry.id}, not the entry first read there: the file changed between reads; run again`, {
          line: item.entry.line,
          byteOffset: item.entry.byteOffset,
        });
      }
      for (const block of item.blocks) {
        if (block.anchor === undefined) continue;
        anchorKey(block.anchor, key);
        const slot = facts.slotOf(key);
        if (slot >= 0) facts.add(slot, block, block.text);
      }
    }
  }
  let spans = 0;
  let verified = 0;
  const mismatched: SpanProblem[] = [];
  const missing: SpanProblem[] = [];
  const unverified: SpanProblem[] = [];
  // verifySpanText's outcome, from a text's facts instead of the text.
  const judge = (where: Omit<SpanProblem, "reason">, span: Span, sha256: string, log: { bytes: number; lines: number }, at: { index: number; line: number }): void => {
    if (span.sha256 === undefined) {
      unverified.push({ ...where, reason: "span has no sha256 (restored from a pre-v2 record); its text is unverified" });
      return;
    }
    let reason: string | undefined;
    if (sha256 !== span.sha256) reason = `sha256 mismatch: span says ${span.sha256}, text has ${sha256}`;
    else if (log.bytes !== span.log.bytes || log.lines !== span.log.lines) {
      reason = `log mismatch: span says ${span.log.bytes} bytes / ${span.log.lines} lines, text has ${log.bytes} / ${log.lines}`;
    }
    if (reason === undefined) verified += 1;
    else mismatched.push({ ...where, reason: `${reason} (block #${String(at.index)}, line ${String(at.line)})` });
  };
  for (const { record, spansInFile } of records) {
    forEachSpan(record, spansInFile, (span) => {
      const own = spans;
      spans += 1;
      const where = { seq: record.seq, blockId: span.blockId, code: span.code };
      const parsed = parseAnchor(span.blockId);
      if (!parsed.ok) {
        missing.push({ ...where, reason: parsed.reason });
        return;
      }
      const base = anchorBase(span.blockId) ?? span.blockId;
      const slot = slots[own] ?? -1;
      const rows: number[] = [];
      for (let row = slot < 0 ? -1 : facts.firstRow(slot); row >= 0; row = facts.next[row] ?? -1) rows.push(row);
      const editId = parsed.anchor.editId;
      if (editId === undefined) {
        const [row, ...others] = rows;
        if (row === undefined) {
          missing.push({ ...where, reason: `no block in ${path} carries ${base}` });
          return;
        }
        if (others.length > 0) {
          missing.push({ ...where, reason: `${String(rows.length)} blocks carry this anchor (#${rows.map((r) => facts.index[r]).join(", #")})` });
          return;
        }
        judge(where, span, facts.shaHex(row), { bytes: facts.bytes[row] ?? 0, lines: facts.lines[row] ?? 0 }, { index: facts.index[row] ?? 0, line: facts.line[row] ?? 0 });
        return;
      }
      const edit = edits.get(editId);
      if (edit === undefined || edit.type !== "context_edit") {
        missing.push({ ...where, reason: `no context_edit entry ${editId} in ${path}` });
        return;
      }
      const target = edit.raw["targetId"];
      const row = rows.find((r) => targets.get(facts.entry[r] ?? -1) === target);
      if (row === undefined) {
        const why = rows.length === 0 ? `no block carries ${base}` : `context_edit ${editId} targets another entry (${String(target)})`;
        missing.push({ ...where, reason: why });
        return;
      }
      const replacement = edit.raw["replacement"];
      if (typeof replacement !== "object" || replacement === null || Array.isArray(replacement)) {
        missing.push({ ...where, reason: `context_edit ${editId} hides its target (replacement null): it has no text` });
        return;
      }
      const text = joinTextParts((replacement as Record<string, unknown>)["content"]);
      judge(where, span, sha256Hex(text), blockLog(text), { index: facts.index[row] ?? 0, line: facts.line[row] ?? 0 });
    });
  }
  return { spans, verified, mismatched, missing, unverified };
}
