// The context inventory as a pure function of the in-context blocks: floor, tool output per tool and
// per item (age, dormant, redundant, reclaimable), dormant content, live rest; totals add up exactly.
// Built by an accumulator that takes the blocks one at a time and keeps no text (InventoryAccumulator),
// so a streamed session's context is accounted for without holding its blocks (issue 28).
import { ItemCodes } from "./item-codes.js";
import { normalizePath, pathTokens } from "../lexicon/paths.js";
import { commandKey, shellWrites, shortCommand } from "../facts/shell-command.js";
import { isContentTool, PATH_KEYS, toolCommand, toolPath } from "../tool-calls/tool-class.js";
import { estimateTextTokens, INVENTORY_ESTIMATOR } from "./estimate.js";
import type {
  ContextInventory,
  FloorAccount,
  FloorInput,
  InventoryBlock,
  InventoryBucket,
  InventoryItem,
  InventoryOptions,
  RedundantReason,
  ToolSummary,
} from "./types.js";

/** Idle turns after which content is dormant (a user turn is one ask; four unanswered asks is stale). */
export const DORMANT_TURNS = 4;
/** Tokens a fold stub costs (the Pi extension's STUB_TOKENS): folding smaller blocks reclaims nothing. */
export const INVENTORY_STUB_TOKENS = 70;

/** Kinds the fold ladder can put behind a recall handle (anchored tool results and thinking). */
const FOLDABLE_KINDS: ReadonlySet<string> = new Set(["toolResult", "thinking"]);
/** Kinds that hold tool output. */
const OUTPUT_KINDS: ReadonlySet<string> = new Set(["toolResult", "bash"]);
/** Kinds that can go dormant outside tool output (the model's own older words and calls). */
const DORMANT_KINDS: ReadonlySet<string> = new Set(["text", "thinking", "toolCall"]);
/** Kinds whose text references files (what "touches" a path); tool output and file content never do. */
const REFERENCE_KINDS: ReadonlySet<string> = new Set(["user", "text", "thinking", "toolCall"]);
const PATH_KEY_SET: ReadonlySet<string> = new Set(PATH_KEYS);
/** Reference scanning reads at most this much of one block (path tokens are early in calls and prose). */
const REFERENCE_SCAN_CHARS = 64 * 1024;

function floorOf(input: FloorInput | undefined, estimate: (text: string) => number, unknownReason: string): FloorAccount {
  const measure = (value: number | string | undefined): number | null =>
    value === undefined ? null : typeof value === "number" ? Math.max(0, Math.round(value)) : estimate(value);
  const systemPrompt = measure(input?.systemPrompt);
  const tools = measure(input?.tools);
  if (systemPrompt === null && tools === null) return { known: false, tokens: 0, systemPrompt, tools, note: `unknown (${unknownReason})` };
  return { known: true, tokens: (systemPrompt ?? 0) + (tools ?? 0), systemPrompt, tools };
}

/** JSON with object keys sorted, so argument order never makes two identical calls differ. */
function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((k) => `${JSON.stringify(k)}:${stableJson((value as Record<string, unknown>)[k])}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

interface CallInfo {
  readonly tool: string | undefined;
  readonly args: Readonly<Record<string, unknown>> | undefined;
}

interface Subject {
  /** Redundancy key: a later output with the same key makes this one redundant. */
  readonly key?: string;
  readonly reason?: RedundantReason;
  readonly display?: string;
  /** The file a read-class output holds (a later edit/write supersedes it). */
  readonly readPath?: string;
  /** Files the call names (a later reference keeps the output from going idle). */
  readonly paths: readonly string[];
  /** Files the call changes. */
  readonly writes: readonly string[];
}

function subjectOf(call: CallInfo, cwd: string | undefined): Subject {
  const { tool, args } = call;
  if (tool === undefined) return { paths: [], writes: [] };
  const path = toolPath(tool, args);
  if (path !== undefined) {
    const norm = normalizePath(path, cwd);
    if (isContentTool(tool, args)) {
      // The rest of the arguments (offset, limit) is the range: reading another range is not a re-read.
      const range = stableJson(Object.fromEntries(Object.entries(args ?? {}).filter(([k]) => !PATH_KEY_SET.has(k))));
      return { key: `read\0${norm}\0${range}`, reason: "reread", display: norm, readPath: norm, paths: [norm], writes: [] };
    }
    // Every other file tool (edit, write, apply_patch, …) changes the file.
    return { display: norm, paths: [norm], writes: [norm] };
  }
  const command = toolCommand(tool, args);
  if (command !== undefined) {
    const paths = pathTokens(command.slice(0, REFERENCE_SCAN_CHARS)).map((p) => normalizePath(p, cwd));
    const writes = shellWrites(command).map((w) => normalizePath(w.path, cwd));
    return { key: `shell\0${commandKey(command, cwd)}`, reason: "rerun", display: shortCommand(command), paths, writes };
  }
  const json = stableJson(args ?? {});
  const paths = pathTokens(json.slice(0, REFERENCE_SCAN_CHARS)).map((p) => normalizePath(p, cwd));
  return { key: `tool\0${tool}\0${json}`, reason: "rerun", paths, writes: [] };
}

/** What an output keeps of its subject once redundancy is settled: what items show and read at the end. */
interface KeptSubject {
  readonly display?: string;
  readonly paths: readonly string[];
}

/** What a tool call leaves for the output answering it: its subject when its tool is named, else its arguments. */
type CallRecord = { readonly tool: string; readonly subject: Subject } | { readonly tool: undefined; readonly args: Readonly<Record<string, unknown>> | undefined };

const REASONS: readonly (RedundantReason | undefined)[] = [undefined, "reread", "rerun", "superseded"];
const REASON_CODE: Readonly<Record<RedundantReason, number>> = { reread: 1, rerun: 2, superseded: 3 };

function grownInt32(a: Int32Array, n: number): Int32Array {
  if (n <= a.length) return a;
  const b = new Int32Array(Math.max(n, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
}

function grownFloat64(a: Float64Array, n: number): Float64Array {
  if (n <= a.length) return a;
  const b = new Float64Array(Math.max(n, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
}

function grownUint8(a: Uint8Array, n: number): Uint8Array {
  if (n <= a.length) return a;
  const b = new Uint8Array(Math.max(n, Math.ceil(a.length * 1.5)));
  b.set(a);
  return b;
}

/**
 * A list whose elements are made when read (`at(i)`), for an inventory too long to hold as objects:
 * an array to every reader (length, indexes, iteration, the array methods), holding nothing per element.
 * Each read makes a new object, equal to the one before.
 */
function lazyList<T>(length: number, at: (i: number) => T): readonly T[] {
  const index = (key: string | symbol): number => {
    if (typeof key !== "string" || key.length === 0 || key.length > 10) return -1;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      if (c < 48 || c > 57 || (i === 0 && c === 48 && key.length > 1)) return -1;
    }
    const n = Number(key);
    return n < length ? n : -1;
  };
  const target: T[] = [];
  return new Proxy(target, {
    get(t, key, receiver) {
      if (key === "length") return length;
      const i = index(key);
      return i >= 0 ? at(i) : Reflect.get(t, key, receiver);
    },
    has(t, key) {
      return index(key) >= 0 || Reflect.has(t, key);
    },
    getOwnPropertyDescriptor(t, key) {
      if (key === "length") return { value: length, writable: true, enumerable: false, configurable: false };
      const i = index(key);
      return i >= 0 ? { value: at(i), writable: false, enumerable: true, configurable: true } : Reflect.getOwnPropertyDescriptor(t, key);
    },
    ownKeys() {
      const keys: string[] = [];
      for (let i = 0; i < length; i++) keys.push(String(i));
      keys.push("length");
      return keys;
    },
  });
}

/**
 * Strings appended one after another into one buffer (UTF-8), each read back by its number: an
 * anchor per block costs its bytes and an offset rather than a string object.
 */
class PackedStrings {
  private bytes = Buffer.allocUnsafe(64 * 1024);
  private used = 0;
  /** Start of string k at [k], its end at [k + 1]; -1: no string. */
  private starts: Int32Array;
  private count = 0;

  constructor(capacity: number) {
    this.starts = new Int32Array(capacity + 1);
  }

  push(text: string | undefined): void {
    if (this.count + 2 > this.starts.length) this.starts = grownInt32(this.starts, this.count + 2);
    if (text === undefined) {
      this.starts[this.count] = -1;
    } else {
      const need = this.used + Buffer.byteLength(text, "utf8");
      if (need > this.bytes.length) {
        const grown = Buffer.allocUnsafe(Math.max(need, Math.ceil(this.bytes.length * 1.5)));
        this.bytes.copy(grown, 0, 0, this.used);
        this.bytes = grown;
      }
      this.starts[this.count] = this.used;
      this.used += this.bytes.write(text, this.used, "utf8");
    }
    this.count++;
    this.starts[this.count] = this.used;
  }

  has(k: number): boolean {
    return (this.starts[k] as number) >= 0;
  }

  at(k: number): string | undefined {
    const start = this.starts[k] as number;
    if (start < 0) return undefined;
    // The end is where the next string starts (or, after a missing one, the next start that is one).
    let j = k + 1;
    while ((this.starts[j] as number) < 0) j++;
    return this.bytes.toString("utf8", start, this.starts[j] as number);
  }
}

/** Equal values made once and shared (subjects repeat: the same file read, the same command run). */
class Interner<T> {
  private readonly held = new Map<string, T>();
  of(signature: string, make: () => T): T {
    let value = this.held.get(signature);
    if (value === undefined) {
      value = make();
      this.held.set(signature, value);
    }
    return value;
  }
  clear(): void {
    this.held.clear();
  }
}

/** `text` as a part of a signature: its length, then it (so no text can run into the next part); "-" when absent. */
function part(text: string | undefined): string {
  return text === undefined ? "-" : `${String(text.length)}:${text}`;
}

function parts(texts: readonly string[]): string {
  let out = `${String(texts.length)}[`;
  for (const text of texts) out += part(text);
  return out;
}

/** Distinct subjects kept for sharing under one filing (see `shared`). */
const SUBJECT_VARIANTS = 8;

/** The string equal subjects are filed under: the key, or for a keyless one (a file-changing tool's) its path. */
function subjectFiling(subject: Subject): string {
  return subject.key ?? (subject.display === undefined ? "" : `\0${subject.display}`);
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Every field equal. */
function sameSubject(a: Subject, b: Subject): boolean {
  return a.key === b.key && a.reason === b.reason && a.display === b.display && a.readPath === b.readPath && sameStrings(a.paths, b.paths) && sameStrings(a.writes, b.writes);
}

export interface InventoryResultOptions {
  /**
   * `items` made one at a time as they are read (`lazyList`) instead of held, so an inventory of millions
   * of items holds a few typed arrays: what the CLI prints on a large session, item by item.
   */
  readonly lazyItems?: boolean;
}

/**
 * `buildInventory` fed one block at a time: each block is taken in as it comes (its tokens counted, the
 * paths it names noted, its redundancy settled) and its text let go, so the blocks of a streamed
 * session need never be held. Per block it keeps a few numbers, its anchor, and for tool output what
 * the item shows of its subject. `result()` once, after the last block.
 */
export class InventoryAccumulator {
  private readonly estimate: (text: string) => number;
  private readonly cwd: string | undefined;
  private readonly calls = new Map<string, CallRecord>();
  private readonly lastReference = new Map<string, number>();
  private readonly lastByKey = new Map<string, number>();
  private readonly openReads = new Map<string, number[]>();
  private maxTurn = 0;
  private count = 0;
  private index: Int32Array;
  private turn: Int32Array;
  private tokens: Float64Array;
  private kind: Uint8Array;
  private reason: Uint8Array;
  private supersededBy: Int32Array;
  private readonly kinds: string[] = [];
  private readonly kindCode = new Map<string, number>();
  /** Tool name by slot, as 1 + its place in `tools` (0: none). */
  private toolOf: Uint16Array;
  private readonly tools: string[] = [];
  private readonly toolCode = new Map<string, number>();
  private readonly anchor: PackedStrings;
  /** What an output item shows of its subject, by slot (undefined for other blocks); shared between equal ones. */
  private readonly subject: (KeptSubject | undefined)[] = [];
  /** Subjects met, filed by `subjectFiling` (the key string they hold already): equal ones shared. */
  private readonly subjects = new Map<string, Subject | Subject[]>();
  private readonly keptSubjects = new Interner<KeptSubject>();
  /** The record of a call by its subject (shared when the tool name is the same too). */
  private readonly callRecords = new Map<Subject, CallRecord>();

  /**
   * `expectedBlocks`: how many blocks are likely to come (a bound known from a session's shape), so the
   * per-block arrays are made once at that size rather than grown.
   */
  constructor(
    private readonly options: InventoryOptions = {},
    expectedBlocks = 1024,
  ) {
    const capacity = Math.max(16, expectedBlocks);
    this.index = new Int32Array(capacity);
    this.turn = new Int32Array(capacity);
    this.tokens = new Float64Array(capacity);
    this.kind = new Uint8Array(capacity);
    this.reason = new Uint8Array(capacity);
    this.supersededBy = new Int32Array(capacity);
    this.toolOf = new Uint16Array(capacity);
    this.anchor = new PackedStrings(capacity);
    this.estimate = options.estimate ?? estimateTextTokens;
    this.cwd = options.cwd;
  }

  private reference(path: string, turn: number): void {
    if ((this.lastReference.get(path) ?? -1) < turn) this.lastReference.set(path, turn);
  }

  private markRedundant(slot: number, reason: RedundantReason, by: number): void {
    if (this.reason[slot] !== 0) return;
    this.reason[slot] = REASON_CODE[reason];
    this.supersededBy[slot] = by;
  }

  private kindOf(kind: string): number {
    let code = this.kindCode.get(kind);
    if (code === undefined) {
      code = this.kinds.length;
      this.kinds.push(kind);
      this.kindCode.set(kind, code);
    }
    return code;
  }

  /** Takes in the next in-context block (blocks in context order). */
  add(block: InventoryBlock): void {
    const cwd = this.cwd;
    if (block.turn > this.maxTurn) this.maxTurn = block.turn;
    const tokens = block.tokens ?? this.estimate(block.text);
    if (block.kind === "toolCall" && block.toolCallId !== undefined) {
      // The output answering the call needs its subject (when the call names its tool) or its arguments.
      const tool = block.toolName;
      if (tool === undefined) this.calls.set(block.toolCallId, { tool: undefined, args: block.args });
      else {
        const subject = this.shared(subjectOf({ tool, args: block.args }, cwd));
        let record = this.callRecords.get(subject);
        if (record?.tool !== tool) {
          record = { tool, subject };
          this.callRecords.set(subject, record);
        }
        this.calls.set(block.toolCallId, record);
      }
    }
    if (REFERENCE_KINDS.has(block.kind)) {
      const text = block.text.length > REFERENCE_SCAN_CHARS ? block.text.slice(0, REFERENCE_SCAN_CHARS) : block.text;
      for (const token of pathTokens(text)) this.reference(normalizePath(token, cwd), block.turn);
      if (block.kind === "toolCall") {
        const path = toolPath(block.toolName, block.args);
        if (path !== undefined) this.reference(normalizePath(path, cwd), block.turn);
      }
    }
    const slot = this.count++;
    const n = this.count;
    if (n > this.index.length) {
      this.index = grownInt32(this.index, n);
      this.turn = grownInt32(this.turn, n);
      this.tokens = grownFloat64(this.tokens, n);
      this.kind = grownUint8(this.kind, n);
      this.reason = grownUint8(this.reason, n);
      this.supersededBy = grownInt32(this.supersededBy, n);
      if (n > this.toolOf.length) {
        const grown = new Uint16Array(this.index.length);
        grown.set(this.toolOf);
        this.toolOf = grown;
      }
    }
    this.index[slot] = block.index;
    this.turn[slot] = block.turn;
    this.tokens[slot] = tokens;
    this.kind[slot] = this.kindOf(block.kind);
    this.supersededBy[slot] = -1;
    this.anchor.push(block.anchor);
    let tool: string | undefined = block.kind === "toolCall" && block.toolName !== undefined ? block.toolName : undefined;
    let kept: KeptSubject | undefined;
    if (OUTPUT_KINDS.has(block.kind)) {
      const call: CallRecord | undefined = block.kind === "bash" ? undefined : block.toolCallId === undefined ? undefined : this.calls.get(block.toolCallId);
      let subject: Subject;
      if (call !== undefined && call.tool !== undefined) {
        tool = call.tool;
        subject = call.subject;
      } else {
        const args = block.kind === "bash" ? block.args : call === undefined ? block.args : call.args;
        const named = block.kind === "bash" ? "bash" : block.toolName;
        if (named !== undefined) tool = named;
        subject = this.shared(subjectOf({ tool: named, args }, cwd));
      }
      if (subject.key !== undefined) {
        const earlier = this.lastByKey.get(subject.key);
        if (earlier !== undefined) this.markRedundant(earlier, subject.reason ?? "rerun", block.index);
        this.lastByKey.set(subject.key, slot);
      }
      for (const written of subject.writes) {
        for (const read of this.openReads.get(written) ?? []) this.markRedundant(read, "superseded", block.index);
        this.openReads.delete(written);
      }
      if (subject.readPath !== undefined) {
        const reads = this.openReads.get(subject.readPath) ?? [];
        reads.push(slot);
        this.openReads.set(subject.readPath, reads);
      }
      const shown = subject;
      kept = this.keptSubjects.of(`${part(shown.display)}${parts(shown.paths)}`, () => (shown.display === undefined ? { paths: shown.paths } : { display: shown.display, paths: shown.paths }));
    }
    this.toolOf[slot] = tool === undefined ? 0 : this.toolNumber(tool);
    this.subject.push(kept);
  }

  private toolNumber(tool: string): number {
    let code = this.toolCode.get(tool);
    if (code === undefined) {
      this.tools.push(tool);
      code = this.tools.length;
      this.toolCode.set(tool, code);
    }
    return code;
  }

  /** `subject`, or an equal one met before (many calls share a subject). */
  private shared(subject: Subject): Subject {
    const filing = subjectFiling(subject);
    const met = this.subjects.get(filing);
    if (met === undefined) {
      this.subjects.set(filing, subject);
      return subject;
    }
    if (!Array.isArray(met)) {
      if (sameSubject(met, subject)) return met;
      this.subjects.set(filing, [met, subject]);
      return subject;
    }
    for (const one of met) if (sameSubject(one, subject)) return one;
    // Past a few variants under one key (the same command typed many ways), not shared: no scan grows with the session.
    if (met.length < SUBJECT_VARIANTS) met.push(subject);
    return subject;
  }

  /** The inventory of the blocks taken in. */
  result(how: InventoryResultOptions = {}): ContextInventory {
    // What only settled redundancy and matched outputs to calls (the items read none of it): let go first.
    this.calls.clear();
    this.lastByKey.clear();
    this.openReads.clear();
    this.subjects.clear();
    this.keptSubjects.clear();
    this.callRecords.clear();
    const options = this.options;
    const dormantTurns = options.dormantTurns ?? DORMANT_TURNS;
    const stubTokens = options.stubTokens ?? INVENTORY_STUB_TOKENS;
    const folded = options.folded ?? new Set<string>();
    const currentTurn = Math.max(options.currentTurn ?? this.maxTurn, this.maxTurn);
    const count = this.count;
    // Codes as the assigner hands them out in item order (a collision gives the later anchor the longer code).
    let foldable = 0;
    for (let i = 0; i < count; i++) if (FOLDABLE_KINDS.has(this.kinds[this.kind[i] as number] as string) && this.anchor.has(i)) foldable++;
    const slots = new Int32Array(foldable);
    for (let i = 0, k = 0; i < count; i++) if (FOLDABLE_KINDS.has(this.kinds[this.kind[i] as number] as string) && this.anchor.has(i)) slots[k++] = i;
    const codes = ItemCodes.assign(count, slots, (slot) => this.anchor.at(slot) as string, options.codes ?? []);
    const item = (i: number): InventoryItem => {
      const kind = this.kinds[this.kind[i] as number] as string;
      const turn = this.turn[i] as number;
      const subject = this.subject[i];
      const anchor = this.anchor.at(i);
      const ageTurns = currentTurn - turn;
      let touched = turn;
      if (subject !== undefined) for (const path of subject.paths) touched = Math.max(touched, this.lastReference.get(path) ?? turn);
      const idleTurns = currentTurn - Math.min(touched, currentTurn);
      const isOutput = OUTPUT_KINDS.has(kind);
      const dormant = (isOutput || DORMANT_KINDS.has(kind)) && idleTurns >= dormantTurns;
      const bucket: InventoryBucket = isOutput ? "toolOutput" : dormant ? "dormant" : "live";
      const reason = REASONS[this.reason[i] as number];
      const redundant = reason !== undefined;
      const isFolded = anchor !== undefined && folded.has(anchor);
      const own = this.tokens[i] as number;
      // A folded block occupies only its stub in the window (the extension may pass the stub text itself).
      const tokens = isFolded ? Math.min(own, stubTokens) : own;
      const foldable = anchor !== undefined && FOLDABLE_KINDS.has(kind) && !isFolded;
      const reclaimable = foldable && (dormant || redundant) && tokens > stubTokens;
      const out: {
        -readonly [K in keyof InventoryItem]: InventoryItem[K];
      } = {
        index: this.index[i] as number,
        kind,
        bucket,
        turn,
        ageTurns,
        idleTurns,
        tokens,
        dormant,
        redundant,
        folded: isFolded,
        reclaimable,
        reclaimableTokens: reclaimable ? tokens - stubTokens : 0,
      };
      const toolNumber = this.toolOf[i] as number;
      if (toolNumber > 0) out.tool = this.tools[toolNumber - 1] as string;
      if (subject?.display !== undefined) out.subject = subject.display;
      if (anchor !== undefined) {
        out.anchor = anchor;
        if (FOLDABLE_KINDS.has(kind)) {
          const code = codes.code(i, anchor);
          if (code !== undefined) out.code = code;
        }
      }
      if (reason !== undefined) out.redundantReason = reason;
      const by = this.supersededBy[i] as number;
      if (by >= 0) out.supersededBy = by;
      return out;
    };

    const tools = new Map<string, { -readonly [K in keyof ToolSummary]: ToolSummary[K] }>();
    const kinds = new Map<string, { kind: string; items: number; tokens: number }>();
    const buckets = { toolOutput: { items: 0, tokens: 0 }, dormant: { items: 0, tokens: 0 }, live: { items: 0, tokens: 0 } };
    const redundantAccount = { items: 0, tokens: 0 };
    let conversation = 0;
    let reclaimableItems = 0;
    let reclaimableTokens = 0;
    const held: InventoryItem[] | undefined = how.lazyItems === true ? undefined : new Array<InventoryItem>(count);
    for (let i = 0; i < count; i++) {
      const it = item(i);
      if (held !== undefined) held[i] = it;
      const b = buckets[it.bucket];
      b.items += 1;
      b.tokens += it.tokens;
      if (it.redundant) {
        redundantAccount.items += 1;
        redundantAccount.tokens += it.tokens;
      }
      conversation += it.tokens;
      if (it.reclaimable) reclaimableItems += 1;
      reclaimableTokens += it.reclaimableTokens;
      const k = kinds.get(it.kind) ?? { kind: it.kind, items: 0, tokens: 0 };
      k.items += 1;
      k.tokens += it.tokens;
      kinds.set(it.kind, k);
      if (it.bucket !== "toolOutput") continue;
      const name = it.tool ?? "(unknown)";
      let t = tools.get(name);
      if (t === undefined) {
        t = { tool: name, items: 0, tokens: 0, dormantItems: 0, redundantItems: 0, reclaimableItems: 0, reclaimableTokens: 0, oldestAgeTurns: 0 };
        tools.set(name, t);
      }
      t.items += 1;
      t.tokens += it.tokens;
      if (it.dormant) t.dormantItems += 1;
      if (it.redundant) t.redundantItems += 1;
      if (it.reclaimable) t.reclaimableItems += 1;
      t.reclaimableTokens += it.reclaimableTokens;
      t.oldestAgeTurns = Math.max(t.oldestAgeTurns, it.ageTurns);
    }
    const byTool = [...tools.values()].sort((a, b) => b.tokens - a.tokens || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
    const byKind = [...kinds.values()].sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));
    const floor = floorOf(options.floor, this.estimate, options.floorUnknownReason ?? "no live Pi");
    return {
      currentTurn,
      dormantTurns,
      stubTokens,
      estimator: options.estimate === undefined ? INVENTORY_ESTIMATOR : "caller's estimator",
      floor,
      items: held ?? lazyList(count, item),
      toolOutput: { ...buckets.toolOutput, byTool },
      dormant: buckets.dormant,
      live: buckets.live,
      byKind,
      reclaimable: { items: reclaimableItems, tokens: reclaimableTokens },
      redundant: redundantAccount,
      total: { tokens: floor.tokens + conversation, conversation },
    };
  }
}

/**
 * The inventory of `blocks` (the blocks in the model's context, in order). Pure and deterministic:
 * O(total text) per call, so the extension can run it per command without keeping state.
 */
export function buildInventory(blocks: Iterable<InventoryBlock>, options: InventoryOptions = {}): ContextInventory {
  const acc = new InventoryAccumulator(options);
  for (const block of blocks) acc.add(block);
  return acc.result();
}
