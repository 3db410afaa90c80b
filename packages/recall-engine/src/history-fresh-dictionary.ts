// A first build's dictionary, made without a log: a history built anew lists every term of every session
// once, in ordinal order, so its base is gathered here as the sessions are indexed. A session's terms come
// sorted (its segment is written in their byte order); a batch of sessions is merged in memory as a merge
// sort merges its runs (no hashing of terms), written sorted to a run file of its own, and the runs are
// merged into the base at the end: each term's sessions come out in ordinal order (the runs are in
// session order), so nothing is sorted per term, and no log is written, walked once per range of terms
// and folded (what an update's merge does, history-merge.ts). The base's bytes are the same as that merge writes from the same
// sessions' records. The run files are the build's own: a crash leaves them to the next build, which
// starts over and removes them.
import { closeSync, openSync, readdirSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";
import { replaceFile } from "@context-fold/durable-fs";
import { dictionaryChunks, type DictionaryEntry } from "./history-dictionary.js";
import { MinHeap } from "./min-heap.js";
import { FileWindow } from "./spill-files.js";

/** Term occurrences (a term of a session) gathered in memory before a batch is written as a run. */
const BATCH_TERMS = 300_000;
/** Bytes of a run read at once while the runs are merged (a window per run). */
const RUN_WINDOW = 256 * 1024;
/** The longest key the base keeps (its u16 length): longer ones are cut there, as a merge cuts them. */
const KEY_MAX = 0xffff;
const RUN_PREFIX = "dictionary.run.";

/** Removes the run files a build left in history folder `dir` (a crash before its manifest). */
export function dropRuns(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (name.startsWith(RUN_PREFIX)) rmSync(join(dir, name), { force: true });
}

/** A latin1 string (one byte per character) cut to KEY_MAX bytes. */
function cut(key: string): string {
  return key.length > KEY_MAX ? key.slice(0, KEY_MAX) : key;
}

/** A run file read entry by entry: [u16 key length, key, varint count, count × (varint ordinal, u16 code)], sorted by key. */
class RunCursor {
  private readonly window: FileWindow;
  key = "";
  ordinals: number[] = [];
  codes: number[] = [];

  constructor(
    fd: number,
    readonly index: number,
    windowBytes: number,
  ) {
    this.window = new FileWindow(fd, windowBytes);
  }

  /** Reads the next entry into `key`, `ordinals`, `codes`; false at the run's end. */
  next(): boolean {
    const w = this.window;
    if (!w.have(2)) return false;
    const length = w.buf.readUInt16LE(w.start);
    // The key and the count's varint (at most 5 bytes: fewer at the run's end), then the pairs (at most 7 bytes each).
    w.have(2 + length + 5);
    let at = w.start + 2;
    this.key = w.buf.toString("latin1", at, at + length);
    at += length;
    let count = 0;
    let shift = 1;
    for (;;) {
      const b = w.buf[at++] as number;
      count += (b & 0x7f) * shift;
      if (b < 0x80) break;
      shift *= 128;
    }
    const headBytes = at - w.start;
    w.have(headBytes + count * 7);
    const buf = w.buf;
    at = w.start + headBytes;
    const ordinals = new Array<number>(count);
    const codes = new Array<number>(count);
    for (let i = 0; i < count; i++) {
      let v = 0;
      let s = 1;
      for (;;) {
        const b = buf[at++] as number;
        v += (b & 0x7f) * s;
        if (b < 0x80) break;
        s *= 128;
      }
      ordinals[i] = v;
      codes[i] = (buf[at] as number) | ((buf[at + 1] as number) << 8);
      at += 2;
    }
    if (at > w.end) throw new Error("history build: a dictionary run ends inside an entry");
    this.ordinals = ordinals;
    this.codes = codes;
    w.start = at;
    return true;
  }
}

/** Cursors ordered by their key, then by run (earlier sessions first). */
function before(a: RunCursor, b: RunCursor): boolean {
  return a.key < b.key || (a.key === b.key && a.index < b.index);
}

/**
 * Sessions' terms merged in memory: keys sorted (latin1 of their UTF-8, so string order is byte order),
 * each once, with its sessions' ordinals and codes in `ords`/`codes` from `ends[k - 1]` (0 for the first) to `ends[k]`.
 */
interface SortedRun {
  readonly keys: string[];
  readonly ends: Int32Array;
  readonly ords: Int32Array;
  readonly codes: Uint16Array;
  /** Sessions merged into it: runs of equal weight are merged (a binary counter), so each term is copied about log2(sessions) times. */
  readonly weight: number;
}

/** Runs `a` and `b` as one (`a` holds earlier sessions than `b`: a term's sessions stay in ordinal order). */
function mergeRuns(a: SortedRun, b: SortedRun): SortedRun {
  const an = a.keys.length;
  const bn = b.keys.length;
  const keys = new Array<string>(an + bn);
  const ends = new Int32Array(an + bn);
  const ords = new Int32Array(a.ords.length + b.ords.length);
  const codes = new Uint16Array(ords.length);
  const { ends: aEnds, ords: aOrds, codes: aCodes, keys: aKeys } = a;
  const { ends: bEnds, ords: bOrds, codes: bCodes, keys: bKeys } = b;
  let i = 0;
  let j = 0;
  let n = 0;
  let at = 0;
  // Where the next entry of each run begins in its ords/codes.
  let aFrom = 0;
  let bFrom = 0;
  while (i < an || j < bn) {
    let takeA: boolean;
    let takeB: boolean;
    if (i >= an) {
      takeA = false;
      takeB = true;
    } else if (j >= bn) {
      takeA = true;
      takeB = false;
    } else {
      const x = aKeys[i] as string;
      const y = bKeys[j] as string;
      takeA = x <= y;
      takeB = y <= x;
    }
    if (takeA) {
      keys[n] = aKeys[i] as string;
      const to = aEnds[i++] as number;
      for (let p = aFrom; p < to; p++) {
        ords[at] = aOrds[p] as number;
        codes[at++] = aCodes[p] as number;
      }
      aFrom = to;
    } else keys[n] = bKeys[j] as string;
    if (takeB) {
      const to = bEnds[j++] as number;
      for (let p = bFrom; p < to; p++) {
        ords[at] = bOrds[p] as number;
        codes[at++] = bCodes[p] as number;
      }
      bFrom = to;
    }
    ends[n++] = at;
  }
  keys.length = n;
  return { keys, ends: ends.subarray(0, n), ords, codes, weight: a.weight + b.weight };
}

/**
 * The dictionary of a history built anew. `add` each session's terms (keys: each term's UTF-8 read as
 * latin1) in ordinal order; `write` the base. A session's terms come sorted (its segment's byte order),
 * so a batch is merged like a merge sort's runs (two at a time, equal sizes first: no hashing, and a term
 * many sessions hold is one entry after the first merges), and each batch is written as a run file.
 */
export class FreshDictionary {
  /** The batch: merged runs of decreasing weight. */
  private stack: SortedRun[] = [];
  private held = 0;
  private readonly runs: string[] = [];
  private lastOrdinal = -1;

  /** `limits`: term occurrences gathered in memory per run, bytes of a run read at once (tests make them small). */
  constructor(
    private readonly dir: string,
    private readonly limits: { readonly batchTerms: number; readonly windowBytes: number } = { batchTerms: BATCH_TERMS, windowBytes: RUN_WINDOW },
  ) {}

  /** Whether no session's terms were added (a build that adds none writes no base, as a merge of an empty log writes none). */
  get empty(): boolean {
    return this.lastOrdinal < 0;
  }

  /**
   * Session `ordinal`'s terms (`keys`, latin1 of their UTF-8) and their codes; ordinals must ascend.
   * `order`: the keys' indices in byte order, when the caller sorted them (else they are sorted here).
   */
  add(ordinal: number, keys: readonly string[], codes: ArrayLike<number>, order?: ArrayLike<number>): void {
    if (ordinal <= this.lastOrdinal) throw new RangeError(`history build: session ${String(ordinal)} after ${String(this.lastOrdinal)}`);
    this.lastOrdinal = ordinal;
    if (keys.length === 0) return;
    let sorted: ArrayLike<number>;
    if (order !== undefined && order.length === keys.length) sorted = order;
    else {
      const cutKeys = keys.map(cut);
      sorted = Array.from(keys.keys()).sort((a, b) => {
        const x = cutKeys[a] as string;
        const y = cutKeys[b] as string;
        return x < y ? -1 : x > y ? 1 : 0;
      });
    }
    const n = keys.length;
    const runKeys = new Array<string>(n);
    const ends = new Int32Array(n);
    const ords = new Int32Array(n).fill(ordinal);
    const runCodes = new Uint16Array(n);
    for (let k = 0; k < n; k++) {
      const i = sorted[k] as number;
      runKeys[k] = cut(keys[i] as string);
      runCodes[k] = codes[i] as number;
      ends[k] = k + 1;
    }
    let run: SortedRun = { keys: runKeys, ends, ords, codes: runCodes, weight: 1 };
    const stack = this.stack;
    while (stack.length > 0 && (stack[stack.length - 1] as SortedRun).weight <= run.weight) run = mergeRuns(stack.pop() as SortedRun, run);
    stack.push(run);
    this.held += n;
    if (this.held >= this.limits.batchTerms) this.spill();
  }

  /** Writes the batch as one run file, sorted by key. */
  private spill(): void {
    const stack = this.stack;
    if (stack.length === 0) return;
    let run = stack.pop() as SortedRun;
    while (stack.length > 0) run = mergeRuns(stack.pop() as SortedRun, run);
    const path = join(this.dir, `${RUN_PREFIX}${String(this.runs.length)}`);
    const fd = openSync(path, "w", 0o600);
    try {
      let buf = Buffer.allocUnsafe(1 << 20);
      let used = 0;
      const flush = (): void => {
        let done = 0;
        while (done < used) done += writeSync(fd, buf, done, used - done);
        used = 0;
      };
      let from = 0;
      for (let k = 0; k < run.keys.length; k++) {
        const key = run.keys[k] as string;
        const to = run.ends[k] as number;
        const most = 2 + key.length + 5 + (to - from) * 7;
        if (used + most > buf.length) {
          flush();
          if (most > buf.length) buf = Buffer.allocUnsafe(most);
        }
        buf[used++] = key.length & 0xff;
        buf[used++] = key.length >>> 8;
        used += buf.write(key, used, "latin1");
        let n = to - from;
        while (n >= 0x80) {
          buf[used++] = (n & 0x7f) | 0x80;
          n = Math.floor(n / 128);
        }
        buf[used++] = n;
        for (let p = from; p < to; p++) {
          let v = run.ords[p] as number;
          while (v >= 0x80) {
            buf[used++] = (v & 0x7f) | 0x80;
            v = Math.floor(v / 128);
          }
          buf[used++] = v;
          const code = run.codes[p] as number;
          buf[used++] = code & 0xff;
          buf[used++] = code >>> 8;
        }
        from = to;
      }
      flush();
    } finally {
      closeSync(fd);
    }
    this.runs.push(path);
    this.held = 0;
  }

  /** The entries, merged from the runs, sorted by key: sessions `alive` only, each once (of one listed twice, its greatest code). */
  private *entries(cursors: readonly RunCursor[], alive: (ordinal: number) => boolean): Generator<DictionaryEntry> {
    const heap = new MinHeap<RunCursor>(before);
    for (const c of cursors) if (c.next()) heap.push(c);
    let key: string | null = null;
    let pairs: number[] = [];
    const out = (): DictionaryEntry | null => {
      if (key === null) return null;
      // In ordinal order but for a key a run held twice (two terms cut to one key): then sorted, of one session its greatest code kept.
      let ordered = true;
      for (let k = 2; k < pairs.length; k += 2) if ((pairs[k] as number) < (pairs[k - 2] as number)) ordered = false;
      if (!ordered) {
        const packed = [];
        for (let k = 0; k < pairs.length; k += 2) packed.push((pairs[k] as number) * 65536 + (pairs[k + 1] as number));
        packed.sort((x, y) => x - y);
        pairs = [];
        for (const v of packed) pairs.push(Math.floor(v / 65536), v % 65536);
      }
      const ordinals: number[] = [];
      const codes: number[] = [];
      for (let k = 0; k < pairs.length; k += 2) {
        const o = pairs[k] as number;
        if (!alive(o)) continue;
        const code = pairs[k + 1] as number;
        if (ordinals.length > 0 && ordinals[ordinals.length - 1] === o) {
          if (code > (codes[codes.length - 1] as number)) codes[codes.length - 1] = code;
          continue;
        }
        ordinals.push(o);
        codes.push(code);
      }
      return ordinals.length > 0 ? { key: Buffer.from(key, "latin1"), ordinals, codes } : null;
    };
    while (heap.items.length > 0) {
      // The least key's cursor (of equal keys, the earliest run's: their sessions come in ordinal order).
      const c = heap.pop() as RunCursor;
      if (c.key !== key) {
        const entry = out();
        if (entry !== null) yield entry;
        key = c.key;
        pairs = [];
      }
      const os = c.ordinals;
      const cs = c.codes;
      for (let i = 0; i < os.length; i++) pairs.push(os[i] as number, cs[i] as number);
      if (c.next()) heap.push(c);
    }
    const last = out();
    if (last !== null) yield last;
  }

  /** Writes the base to `basePath` (replaced atomically, durable), of the sessions `alive`; the runs are removed. */
  write(basePath: string, alive: (ordinal: number) => boolean): void {
    this.spill();
    const fds: number[] = [];
    try {
      for (const path of this.runs) fds.push(openSync(path, "r"));
      const cursors = fds.map((fd, k) => new RunCursor(fd, k, this.limits.windowBytes));
      replaceFile(basePath, dictionaryChunks(this.entries(cursors, alive)), { mode: 0o600 });
    } finally {
      for (const fd of fds) closeSync(fd);
      for (const path of this.runs) rmSync(path, { force: true });
    }
  }
}
