// Consumes a session file line by line (in memory or streamed, from the start or a resume offset):
// header check, damage recovery, in-memory v1/v2 → v3 migration, entries, blocks and the tree index.
import { entryBlocks, isUserMessage } from "./blocks.js";
import { LedgerError } from "./errors.js";
import { salvageText } from "./salvage.js";
import type { Block, Damage, Entry, Salvage, SessionHeader, StreamItem } from "./types.js";
import { shapeOf, withoutText } from "./entry-shape.js";
import { GLUE, isBlank, looksLikeEntry } from "./torn-lines.js";
import { isRecord } from "./is-record.js";

const NEWLINE = 0x0a;

/** Everything readSession builds, kept between reads so `updateSession` only adds to it. */
export class LedgerBuilder {
  readonly path: string;
  readonly withText: boolean;
  header: SessionHeader | undefined;
  readonly entries: Entry[] = [];
  readonly blocks: Block[] = [];
  /** Damage of consumed lines (final). */
  readonly damaged: Damage[] = [];
  /** Damage of the unconsumed incomplete last line (replaced on every read). */
  tailDamage: Damage | undefined;
  readonly byId = new Map<string, Entry>();
  /** Pi's leaf: the last entry in file order that Pi keeps (not recovered from a torn line). */
  leafId: string | null = null;
  /** Entries recovered from torn lines (Pi drops them): when 0, both views share one lineage. */
  recoveredCount = 0;
  readonly roots: string[] = [];
  readonly branchPoints: string[] = [];
  /** anchor → indexes of the blocks carrying it (two on different branches is possible). */
  readonly anchors = new Map<string, number[]>();
  /** Index of each entry's first block, by entry position (its blocks run to the next entry's first). */
  readonly blockStart: number[] = [];
  /** Physical lines consumed. */
  lines = 0;
  /** Bytes consumed. */
  byteLength = 0;
  /** The last consumed line had no newline but parsed: a following "\n" just completes it. */
  pendingNewline = false;
  /**
   * Entry id per line Pi's loader parses (header included, so the index is what v1's
   * `firstKeptEntryIndex` counts); null where Pi's entry is the header or not an entry.
   */
  private readonly v1Ids: (string | null)[] = [];
  /** Pi's v1 chain runs over the lines it parses: a recovered object never becomes the next parent. */
  private v1LastId: string | null = null;
  /** The last v1 entry in file order, recovered ones included: what turns continue from. */
  private v1LastAnyId: string | null = null;
  /**
   * Streaming mode: entries, blocks and damage are queued in `fresh` for the caller to take, and only
   * tree metadata (turn and child count per id) is kept, so memory does not grow with the text.
   */
  readonly streaming: boolean;
  readonly fresh: StreamItem[] = [];
  /**
   * Per entry id, kept in both modes: `turn * 8 + (recovered ? 4 : 0) + min(children, 3)`. The turn is
   * what a child's turn continues from; the child count (of children Pi keeps) finds branch points; the
   * recovered bit tells a parent Pi never saw. One map, so streaming a long session keeps one key and
   * one slot per id (two maps cost twice as much: ≈130 MB against ≈65 MB at 700k entries). Streaming
   * only: a read that keeps its entries finds turn and recovered bit on the entry `byId` holds and the
   * child count in `childCounts`, so it pays for no second map (≈50 MB on a 900k-entry session).
   */
  private readonly nodeById: Map<string, number> | undefined;
  /** Not streaming: children Pi keeps (saturating at 3) of the entry at each position. */
  private childCounts = new Uint8Array(1024);
  entryCount = 0;
  blockCount = 0;

  /** Set when a headerless file may be read as a fragment: the id its made-up header gets. */
  readonly fragmentId: string | undefined;
  /**
   * Shape mode (`readSessionShape`): entries keep only their shape (see `shapeOf`), blocks are counted
   * (per kind, and each entry's first `#N` in `blockStart`) but not kept. Damage keeps its salvage.
   */
  readonly shape: boolean;
  /** Shape mode: blocks per kind, in the order kinds were first seen. */
  readonly blockKinds = new Map<string, number>();
  /** Shape mode with `blockBytes`: each block's UTF-8 text size by #N (the text itself is dropped). */
  readonly blockBytes: number[] | undefined;

  constructor(path: string, options: { withText: boolean; streaming: boolean; fragmentId?: string; shape?: boolean; blockBytes?: boolean }) {
    this.path = path;
    this.fragmentId = options.fragmentId;
    this.withText = options.withText;
    this.streaming = options.streaming;
    this.shape = options.shape === true;
    this.blockBytes = this.shape && options.blockBytes === true ? [] : undefined;
    this.nodeById = this.streaming ? new Map() : undefined;
  }

  /** `turn * 8 + (recovered ? 4 : 0) + min(children, 3)` of the latest entry with this id (see nodeById). */
  private nodeOf(id: string): number | undefined {
    if (this.nodeById !== undefined) return this.nodeById.get(id);
    const entry = this.byId.get(id);
    return entry === undefined ? undefined : entry.turn * 8 + (entry.recovered ? 4 : 0) + (this.childCounts[entry.position] ?? 0);
  }

  /** Record the entry just made (before it is kept): a repeated id keeps the children counted so far. */
  private addNode(id: string, position: number, turn: number, recovered: boolean): void {
    if (this.nodeById !== undefined) {
      this.nodeById.set(id, turn * 8 + (recovered ? 4 : 0) + ((this.nodeById.get(id) ?? 0) % 4));
      return;
    }
    if (position >= this.childCounts.length) {
      const grown = new Uint8Array(this.childCounts.length * 2);
      grown.set(this.childCounts);
      this.childCounts = grown;
    }
    const earlier = this.byId.get(id);
    this.childCounts[position] = earlier === undefined ? 0 : (this.childCounts[earlier.position] ?? 0);
  }

  /** Count one more child Pi keeps under `id` (saturating at 3); the count before. */
  private addChild(id: string, node: number): number {
    const children = node % 4;
    if (children < 3) {
      if (this.nodeById !== undefined) this.nodeById.set(id, node + 1);
      else {
        const entry = this.byId.get(id);
        if (entry !== undefined) this.childCounts[entry.position] = children + 1;
      }
    }
    return children;
  }

  /**
   * Take the lines of `buf[start, end)`, which sits at file offset `this.byteLength`. With `final`, an
   * unterminated last line is examined (reported; taken when it parses); otherwise it is left for the
   * next call. `this.byteLength` advances by the bytes consumed.
   */
  consume(buf: Buffer, start: number, end: number, final: boolean): void {
    if (this.tailPublished) {
      // The incomplete last line is read again now: its report goes until it is re-examined.
      this.damaged.pop();
      this.tailPublished = false;
    }
    let pos = start;
    if (this.pendingNewline && pos < end) {
      this.pendingNewline = false;
      if (buf[pos] === NEWLINE) {
        pos += 1;
        this.byteLength += 1;
        this.dropNoNewlineDamage();
      } else {
        // Bytes appended to a line that had no newline: the line is glued; report and continue it.
        this.lines -= 1;
        this.addDamage({
          line: this.lines + 1,
          byteOffset: this.byteLength,
          kind: "torn-line",
          reason: "bytes were appended to a last line that had no newline (glued write)",
          recovered: true,
        });
      }
    }
    while (pos < end) {
      const nl = buf.indexOf(NEWLINE, pos);
      if (nl === -1 || nl >= end) {
        if (final) this.takeUnterminated(buf, pos, end);
        return;
      }
      this.takeLine(buf, pos, nl, this.byteLength);
      this.lines += 1;
      this.byteLength += nl + 1 - pos;
      pos = nl + 1;
    }
    if (final) this.tailDamage = undefined;
  }

  private takeUnterminated(buf: Buffer, start: number, end: number): void {
    this.tailDamage = undefined;
    if (isBlank(buf, start, end)) {
      if (end > start) {
        this.tailDamage = {
          line: this.lines + 1,
          byteOffset: this.byteLength,
          kind: "no-trailing-newline",
          reason: "the file ends in whitespace without a newline",
          recovered: false,
        };
      }
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(buf.toString("utf8", start, end));
    } catch {
      this.tailDamage = this.withSalvage(
        {
          line: this.lines + 1,
          byteOffset: this.byteLength,
          kind: "no-trailing-newline",
          reason: "the last line has no newline and does not parse (a torn tail, or a write in progress); not consumed",
          recovered: false,
        },
        this.salvage(buf, [[start, end]]),
      );
      return;
    }
    // A complete object still waiting for its newline: take it (Pi does too) and remember that a "\n"
    // appended later only completes this line.
    this.addDamage({
      line: this.lines + 1,
      byteOffset: this.byteLength,
      kind: "no-trailing-newline",
      reason: "the last line has no newline (taken: it parses)",
      recovered: true,
    });
    this.takeValue(value, this.lines + 1, this.byteLength, end - start, false, 0);
    this.lines += 1;
    this.byteLength += end - start;
    this.pendingNewline = true;
  }

  private dropNoNewlineDamage(): void {
    const last = this.damaged[this.damaged.length - 1];
    if (last !== undefined && last.kind === "no-trailing-newline") this.damaged.pop();
  }

  private addDamage(damage: Damage): void {
    if (this.streaming) this.fresh.push({ kind: "damage", damage });
    else this.damaged.push(damage);
  }

  private takeLine(buf: Buffer, start: number, end: number, byteOffset: number): void {
    const line = this.lines + 1;
    if (byteOffset === 0 && end - start >= 3 && buf[start] === 0xef && buf[start + 1] === 0xbb && buf[start + 2] === 0xbf) {
      // Pi's loader cannot parse a header behind a byte-order mark, so it would not see this session.
      throw new LedgerError("NOT_A_SESSION", this.path, "starts with a UTF-8 byte-order mark (EF BB BF) that Pi cannot read past; remove those 3 bytes from a copy", { line, byteOffset });
    }
    if (isBlank(buf, start, end)) {
      this.addDamage({ line, byteOffset, kind: "blank", reason: "blank line", recovered: false });
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(buf.toString("utf8", start, end));
    } catch (error) {
      this.takeBrokenLine(buf, start, end, byteOffset, line, error);
      return;
    }
    this.takeValue(value, line, byteOffset, end - start, false, 0);
  }

  /** A line that does not parse: split a torn write at its `}{"type"` seams, report what is left. */
  private takeBrokenLine(buf: Buffer, start: number, end: number, byteOffset: number, line: number, error: unknown): void {
    const seams: number[] = [];
    for (let at = buf.indexOf(GLUE, start); at !== -1 && at < end; at = buf.indexOf(GLUE, at + 1)) seams.push(at + 1);
    const reason = error instanceof Error ? error.message : String(error);
    if (seams.length === 0) {
      this.addDamage(this.withSalvage({ line, byteOffset, kind: "malformed", reason: `not valid JSON: ${reason}`, recovered: false }, this.salvage(buf, [[start, end]])));
      return;
    }
    const cuts = [start, ...seams, end];
    let parsed = 0;
    const pieces = cuts.length - 1;
    const values: { value: unknown; from: number; to: number }[] = [];
    const broken: [number, number][] = [];
    for (let i = 0; i < pieces; i++) {
      const from = cuts[i] ?? start;
      const to = cuts[i + 1] ?? end;
      // Only a piece shaped like `{"type":…}` can be an entry: skip the parse (and its exception) otherwise.
      if (!looksLikeEntry(buf, from, to)) {
        broken.push([from, to]);
        continue;
      }
      try {
        values.push({ value: JSON.parse(buf.toString("utf8", from, to)), from, to });
        parsed += 1;
      } catch {
        // reported below with the count; its readable fields are salvaged
        broken.push([from, to]);
      }
    }
    this.addDamage(
      this.withSalvage(
        {
          line,
          byteOffset,
          kind: "torn-line",
          reason: `${String(pieces)} JSON objects glued on one line (a torn write); ${String(parsed)} recovered`,
          recovered: parsed === pieces,
        },
        this.salvage(buf, broken),
      ),
    );
    values.forEach(({ value, from, to }, k) => {
      this.takeValue(value, line, byteOffset + (from - start), to - from, true, k);
    });
  }

  /** The readable fields of the byte ranges that did not parse (fields from the first with any, texts joined). */
  private salvage(buf: Buffer, ranges: readonly (readonly [number, number])[]): Salvage | undefined {
    let fields: Salvage | undefined;
    const texts: string[] = [];
    for (const [from, to] of ranges) {
      const found = salvageText(buf.toString("utf8", from, to), this.withText);
      if (found === undefined) continue;
      fields = fields === undefined ? found : { ...found, ...fields };
      if (found.text !== "") texts.push(found.text);
    }
    // One join at the end: a line of many broken pieces stays linear.
    return fields === undefined ? undefined : { ...fields, text: texts.join("\n") };
  }

  private withSalvage(damage: Damage, salvage: Salvage | undefined): Damage {
    return salvage === undefined ? damage : { ...damage, salvage };
  }

  private takeValue(value: unknown, line: number, byteOffset: number, byteLength: number, recovered: boolean, k: number): void {
    if (!value) {
      // null, false, 0, "": Pi's loader skips these lines entirely (they do not count for v1 indexes).
      this.addDamage({ line, byteOffset, kind: "not-an-entry", reason: `a bare ${JSON.stringify(value)} instead of an entry`, recovered: false });
      return;
    }
    if (this.header === undefined) {
      if (this.takeHeader(value, line, byteOffset)) {
        if (!recovered) this.v1Ids.push(null);
        return;
      }
      // A fragment read on request: the first entry is an entry, under a made-up v3 header.
    }
    if (this.header === undefined) return;
    if (!isRecord(value) || typeof value["type"] !== "string") {
      if (!recovered) this.v1Ids.push(null);
      this.addDamage({ line, byteOffset, kind: "not-an-entry", reason: "a JSON value that is not an entry object (no string `type`)", recovered: false });
      return;
    }
    if (value["type"] === "session") {
      if (!recovered) this.v1Ids.push(null);
      this.addDamage({ line, byteOffset, kind: "not-an-entry", reason: "a second session header (Pi ignores it)", recovered: false });
      return;
    }
    const version = this.header.version;
    let turnParentId: string | null | undefined;
    if (version === 1) {
      // v1 has no ids: derive them from the line (contract-decisions.md) and chain in file order, as
      // Pi's migration does over the lines it parses. A recovered object hangs off the chain (the first
      // from the entry before its line, a later one from the object before it) and is never a parent
      // of the next line, so Pi's branch runs on as if the torn line were not there.
      const id = k === 0 ? `v1-${String(line).padStart(6, "0")}` : `v1-${String(line).padStart(6, "0")}-${String(k + 1)}`;
      value["id"] = id;
      value["parentId"] = recovered && k > 0 ? this.v1LastAnyId : this.v1LastId;
      turnParentId = this.v1LastAnyId;
      this.v1LastAnyId = id;
      if (!recovered) {
        this.v1LastId = id;
        this.v1Ids.push(id);
      }
      if (value["type"] === "compaction" && typeof value["firstKeptEntryIndex"] === "number") {
        // Pi maps the index (which counts the header) only to an entry whose id it already assigned.
        const target = this.v1Ids[value["firstKeptEntryIndex"]];
        if (typeof target === "string") value["firstKeptEntryId"] = target;
        delete value["firstKeptEntryIndex"];
      }
    } else if (!recovered) {
      this.v1Ids.push(null);
    }
    if (version < 3 && value["type"] === "message") {
      const message = value["message"];
      if (isRecord(message) && message["role"] === "hookMessage") message["role"] = "custom";
    }
    const id = value["id"];
    if (typeof id !== "string" || id.length === 0) {
      this.addDamage({ line, byteOffset, kind: "not-an-entry", reason: "an entry without a string `id`", recovered: false });
      return;
    }
    const parentRaw = value["parentId"];
    const parentId = typeof parentRaw === "string" && parentRaw.length > 0 ? parentRaw : null;
    const parentNode = parentId === null || parentId === id ? undefined : this.nodeOf(parentId);
    // Turns are recovered-view numbering: they continue through recovered entries (v1: file order).
    const turnNode = turnParentId === undefined ? parentNode : turnParentId === null ? undefined : this.nodeOf(turnParentId);
    const parentTurn = turnNode === undefined ? undefined : Math.floor(turnNode / 8);
    const turn = (parentTurn ?? 0) + (isUserMessage(value) ? 1 : 0);
    // Pi's tree: a parent Pi dropped (recovered) is as missing as one never seen.
    const piParent = parentNode !== undefined && (parentNode & 4) === 0;
    const timestamp = typeof value["timestamp"] === "string" ? value["timestamp"] : undefined;
    const entry: Entry = {
      line,
      byteOffset,
      position: this.entryCount,
      id,
      parentId,
      type: value["type"],
      timestamp,
      byteLength,
      recovered,
      raw: value,
      turn,
    };
    this.entryCount += 1;
    this.addNode(id, entry.position, turn, recovered);
    if (recovered) this.recoveredCount += 1;
    else {
      this.leafId = id;
      if (!piParent) this.roots.push(id);
      else if (parentId !== null && parentNode !== undefined) {
        // The parent was seen (else this entry is a root); its children saturate at 3: "two or more" is all a branch point needs.
        const children = this.addChild(parentId, this.nodeOf(parentId) ?? parentNode);
        if (children === 1) this.branchPoints.push(parentId);
      }
    }
    const sizes = this.blockBytes;
    const blocks = entryBlocks(entry, this.blockCount, this.withText && (!this.shape || sizes !== undefined));
    if (this.shape) {
      const kept = { ...entry, raw: shapeOf(value) };
      this.entries.push(kept);
      this.byId.set(id, kept);
      this.blockStart.push(this.blockCount);
      for (const block of blocks) {
        this.blockKinds.set(block.kind, (this.blockKinds.get(block.kind) ?? 0) + 1);
        sizes?.push(Buffer.byteLength(block.text, "utf8"));
      }
      this.blockCount += blocks.length;
      return;
    }
    this.blockCount += blocks.length;
    const kept = this.withText ? entry : { ...entry, raw: withoutText(value) };
    if (this.streaming) {
      this.fresh.push({ kind: "entry", entry: kept, blocks });
      return;
    }
    this.entries.push(kept);
    this.byId.set(id, kept);
    this.blockStart.push(this.blocks.length);
    for (const block of blocks) {
      this.blocks.push(block);
      if (block.anchor !== undefined) {
        const list = this.anchors.get(block.anchor);
        if (list === undefined) this.anchors.set(block.anchor, [block.index]);
        else list.push(block.index);
      }
    }
  }

  /** Take the header line; false when the line is an entry of a fragment read on request (a header was made up). */
  private takeHeader(value: unknown, line: number, byteOffset: number): boolean {
    if (isRecord(value) && value["type"] === "session" && typeof value["id"] === "string") {
      const rawVersion = value["version"];
      const version: 1 | 2 | 3 = rawVersion === undefined || rawVersion === 1 ? 1 : rawVersion === 2 ? 2 : 3;
      const header: { -readonly [K in keyof SessionHeader]: SessionHeader[K] } = {
        id: value["id"],
        version,
        timestamp: typeof value["timestamp"] === "string" ? value["timestamp"] : undefined,
        cwd: typeof value["cwd"] === "string" ? value["cwd"] : undefined,
        raw: value,
      };
      if (typeof value["parentSession"] === "string") header.parentSession = value["parentSession"];
      this.header = header;
      if (this.streaming) this.fresh.push({ kind: "header", header });
      return true;
    }
    if (isRecord(value) && typeof value["type"] === "string" && ("parentId" in value || "id" in value || value["type"] === "message")) {
      if (this.fragmentId !== undefined) {
        const timestamp = typeof value["timestamp"] === "string" ? value["timestamp"] : undefined;
        const header: SessionHeader = {
          id: this.fragmentId,
          version: 3,
          timestamp,
          cwd: undefined,
          raw: { type: "session", version: 3, id: this.fragmentId, ...(timestamp === undefined ? {} : { timestamp }) },
          fragment: true,
        };
        this.header = header;
        if (this.streaming) this.fresh.push({ kind: "header", header });
        return false;
      }
      throw new LedgerError(
        "NO_HEADER",
        this.path,
        `starts with a "${value["type"]}" entry, not the {"type":"session"} header: a fragment of a Pi session? Read the whole file`,
        { line, byteOffset },
      );
    }
    const what = Array.isArray(value) ? "an array" : isRecord(value) ? "an object without a session `type`" : `a JSON ${typeof value}`;
    const before = line > 1 ? ` (line 1 to ${String(line - 1)} do not parse as JSON)` : "";
    throw new LedgerError("NOT_A_SESSION", this.path, `not a Pi session file: the first line that parses as JSON is ${what}, not the {"type":"session"} header${before}`, {
      line,
      byteOffset,
    });
  }

  private tailPublished = false;

  /** All damage so far, the incomplete last line's included (shared array: no copy per read). */
  damageWithTail(): Damage[] {
    if (this.tailDamage !== undefined && !this.tailPublished) {
      this.damaged.push(this.tailDamage);
      this.tailPublished = true;
    }
    return this.damaged;
  }

  /** The `#N` of one entry's blocks (shape mode holds no blocks, only where each entry's begin). */
  blockIndexesOf(entry: Entry): readonly { readonly index: number }[] {
    if (!this.shape) return this.blocksOf(entry);
    const from = this.blockStart[entry.position] ?? this.blockCount;
    const to = this.blockStart[entry.position + 1] ?? this.blockCount;
    return to > from ? [{ index: from }, { index: to - 1 }] : [];
  }

  /**
   * The blocks of `entries`, in their order, in one array made at its size: no array per entry (the
   * compaction hook lists a long session's lineage, thousands of entries, and every array is garbage).
   */
  blocksOfAll(entries: readonly Entry[]): Block[] {
    const blocks = this.blocks;
    const starts = this.blockStart;
    let total = 0;
    for (const entry of entries) total += (starts[entry.position + 1] ?? blocks.length) - (starts[entry.position] ?? blocks.length);
    const out = new Array<Block>(total);
    let at = 0;
    for (const entry of entries) {
      const to = starts[entry.position + 1] ?? blocks.length;
      for (let i = starts[entry.position] ?? blocks.length; i < to; i++) out[at++] = blocks[i] as Block;
    }
    return out;
  }

  /** The blocks of one entry. */
  blocksOf(entry: Entry): Block[] {
    const from = this.blockStart[entry.position] ?? this.blocks.length;
    const to = this.blockStart[entry.position + 1] ?? this.blocks.length;
    return this.blocks.slice(from, to);
  }

  /** After the last byte: a file without any header is no session. */
  requireHeader(): SessionHeader {
    if (this.header !== undefined) return this.header;
    if (this.byteLength === 0 && this.tailDamage === undefined) {
      throw new LedgerError("EMPTY", this.path, "the file is empty (Pi writes the session file after the first message)");
    }
    throw new LedgerError("NOT_A_SESSION", this.path, "not a Pi session file: no line parses as JSON", { line: 1, byteOffset: 0 });
  }
}
