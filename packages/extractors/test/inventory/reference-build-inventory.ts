// The reference for the differential test (inventory-reference.test.ts): `buildInventory` as it was before
// it took blocks one at a time (issue 28), kept verbatim apart from its imports, so the accumulator's
// output can be compared with it byte for byte on every fixture. Not used by any code.
import { CodeAssigner } from "@context-fold/seed-index-format";
import { normalizePath, pathTokens } from "../../src/lexicon/paths.js";
import { commandKey, shellWrites, shortCommand } from "../../src/facts/shell-command.js";
import { isContentTool, PATH_KEYS, toolCommand, toolPath } from "../../src/tool-calls/tool-class.js";
import { estimateTextTokens, INVENTORY_ESTIMATOR } from "../../src/inventory/estimate.js";
import type {
  BucketAccount,
  ContextInventory,
  FloorAccount,
  FloorInput,
  InventoryBlock,
  InventoryBucket,
  InventoryItem,
  InventoryOptions,
  RedundantReason,
  ToolSummary,
} from "../../src/inventory/types.js";

/** Idle turns after which content is dormant (a user turn is one ask; four unanswered asks is stale). */
const DORMANT_TURNS = 4;
/** Tokens a fold stub costs (the Pi extension's STUB_TOKENS): folding smaller blocks reclaims nothing. */
const INVENTORY_STUB_TOKENS = 70;

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

function account(items: readonly InventoryItem[], pick: (item: InventoryItem) => boolean): BucketAccount {
  let count = 0;
  let tokens = 0;
  for (const item of items) {
    if (!pick(item)) continue;
    count += 1;
    tokens += item.tokens;
  }
  return { items: count, tokens };
}

interface Draft {
  index: number;
  kind: string;
  turn: number;
  tokens: number;
  tool?: string;
  anchor?: string;
  subject: Subject;
  redundantReason?: RedundantReason;
  supersededBy?: number;
}

/**
 * The inventory of `blocks` (the blocks in the model's context, in order). Pure and deterministic:
 * O(total text) per call, so the extension can run it per command without keeping state.
 */
export function referenceBuildInventory(blocks: Iterable<InventoryBlock>, options: InventoryOptions = {}): ContextInventory {
  const estimate = options.estimate ?? estimateTextTokens;
  const dormantTurns = options.dormantTurns ?? DORMANT_TURNS;
  const stubTokens = options.stubTokens ?? INVENTORY_STUB_TOKENS;
  const cwd = options.cwd;
  const folded = options.folded ?? new Set<string>();
  const calls = new Map<string, CallInfo>();
  const lastReference = new Map<string, number>();
  const drafts: Draft[] = [];
  const lastByKey = new Map<string, Draft>();
  const openReads = new Map<string, Draft[]>();
  let maxTurn = 0;

  const reference = (path: string, turn: number): void => {
    if ((lastReference.get(path) ?? -1) < turn) lastReference.set(path, turn);
  };
  const markRedundant = (draft: Draft, reason: RedundantReason, by: number): void => {
    if (draft.redundantReason !== undefined) return;
    draft.redundantReason = reason;
    draft.supersededBy = by;
  };

  for (const block of blocks) {
    if (block.turn > maxTurn) maxTurn = block.turn;
    const tokens = block.tokens ?? estimate(block.text);
    if (block.kind === "toolCall" && block.toolCallId !== undefined) calls.set(block.toolCallId, { tool: block.toolName, args: block.args });
    if (REFERENCE_KINDS.has(block.kind)) {
      const text = block.text.length > REFERENCE_SCAN_CHARS ? block.text.slice(0, REFERENCE_SCAN_CHARS) : block.text;
      for (const token of pathTokens(text)) reference(normalizePath(token, cwd), block.turn);
      if (block.kind === "toolCall") {
        const path = toolPath(block.toolName, block.args);
        if (path !== undefined) reference(normalizePath(path, cwd), block.turn);
      }
    }
    const draft: Draft = { index: block.index, kind: block.kind, turn: block.turn, tokens, subject: { paths: [], writes: [] } };
    if (block.anchor !== undefined) draft.anchor = block.anchor;
    if (block.kind === "toolCall" && block.toolName !== undefined) draft.tool = block.toolName;
    if (OUTPUT_KINDS.has(block.kind)) {
      const call: CallInfo =
        block.kind === "bash"
          ? { tool: "bash", args: block.args }
          : (block.toolCallId === undefined ? undefined : calls.get(block.toolCallId)) ?? { tool: block.toolName, args: block.args };
      const tool = call.tool ?? block.toolName;
      if (tool !== undefined) draft.tool = tool;
      const subject = subjectOf({ tool, args: call.args }, cwd);
      draft.subject = subject;
      if (subject.key !== undefined) {
        const earlier = lastByKey.get(subject.key);
        if (earlier !== undefined) markRedundant(earlier, subject.reason ?? "rerun", block.index);
        lastByKey.set(subject.key, draft);
      }
      for (const written of subject.writes) {
        for (const read of openReads.get(written) ?? []) markRedundant(read, "superseded", block.index);
        openReads.delete(written);
      }
      if (subject.readPath !== undefined) {
        const reads = openReads.get(subject.readPath) ?? [];
        reads.push(draft);
        openReads.set(subject.readPath, reads);
      }
    }
    drafts.push(draft);
  }

  const currentTurn = Math.max(options.currentTurn ?? maxTurn, maxTurn);
  const assigner = new CodeAssigner(options.codes ?? []);
  const items: InventoryItem[] = drafts.map((d) => {
    const ageTurns = currentTurn - d.turn;
    let touched = d.turn;
    for (const path of d.subject.paths) touched = Math.max(touched, lastReference.get(path) ?? d.turn);
    const idleTurns = currentTurn - Math.min(touched, currentTurn);
    const isOutput = OUTPUT_KINDS.has(d.kind);
    const dormant = (isOutput || DORMANT_KINDS.has(d.kind)) && idleTurns >= dormantTurns;
    const bucket: InventoryBucket = isOutput ? "toolOutput" : dormant ? "dormant" : "live";
    const redundant = d.redundantReason !== undefined;
    const isFolded = d.anchor !== undefined && folded.has(d.anchor);
    // A folded block occupies only its stub in the window (the extension may pass the stub text itself).
    const tokens = isFolded ? Math.min(d.tokens, stubTokens) : d.tokens;
    const foldable = d.anchor !== undefined && FOLDABLE_KINDS.has(d.kind) && !isFolded;
    const reclaimable = foldable && (dormant || redundant) && tokens > stubTokens;
    const item: {
      -readonly [K in keyof InventoryItem]: InventoryItem[K];
    } = {
      index: d.index,
      kind: d.kind,
      bucket,
      turn: d.turn,
      ageTurns,
      idleTurns,
      tokens,
      dormant,
      redundant,
      folded: isFolded,
      reclaimable,
      reclaimableTokens: reclaimable ? tokens - stubTokens : 0,
    };
    if (d.tool !== undefined) item.tool = d.tool;
    if (d.subject.display !== undefined) item.subject = d.subject.display;
    if (d.anchor !== undefined) {
      item.anchor = d.anchor;
      if (FOLDABLE_KINDS.has(d.kind)) item.code = assigner.assign(d.anchor);
    }
    if (d.redundantReason !== undefined) item.redundantReason = d.redundantReason;
    if (d.supersededBy !== undefined) item.supersededBy = d.supersededBy;
    return item;
  });

  const tools = new Map<string, { -readonly [K in keyof ToolSummary]: ToolSummary[K] }>();
  for (const item of items) {
    if (item.bucket !== "toolOutput") continue;
    const name = item.tool ?? "(unknown)";
    let t = tools.get(name);
    if (t === undefined) {
      t = { tool: name, items: 0, tokens: 0, dormantItems: 0, redundantItems: 0, reclaimableItems: 0, reclaimableTokens: 0, oldestAgeTurns: 0 };
      tools.set(name, t);
    }
    t.items += 1;
    t.tokens += item.tokens;
    if (item.dormant) t.dormantItems += 1;
    if (item.redundant) t.redundantItems += 1;
    if (item.reclaimable) t.reclaimableItems += 1;
    t.reclaimableTokens += item.reclaimableTokens;
    t.oldestAgeTurns = Math.max(t.oldestAgeTurns, item.ageTurns);
  }
  const byTool = [...tools.values()].sort((a, b) => b.tokens - a.tokens || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));

  const kinds = new Map<string, { kind: string; items: number; tokens: number }>();
  for (const item of items) {
    const k = kinds.get(item.kind) ?? { kind: item.kind, items: 0, tokens: 0 };
    k.items += 1;
    k.tokens += item.tokens;
    kinds.set(item.kind, k);
  }
  const byKind = [...kinds.values()].sort((a, b) => (a.kind < b.kind ? -1 : a.kind > b.kind ? 1 : 0));

  const floor = floorOf(options.floor, estimate, options.floorUnknownReason ?? "no live Pi");
  const conversation = items.reduce((sum, item) => sum + item.tokens, 0);
  const reclaimableTokens = items.reduce((sum, item) => sum + item.reclaimableTokens, 0);
  return {
    currentTurn,
    dormantTurns,
    stubTokens,
    estimator: options.estimate === undefined ? INVENTORY_ESTIMATOR : "caller's estimator",
    floor,
    items,
    toolOutput: { ...account(items, (i) => i.bucket === "toolOutput"), byTool },
    dormant: account(items, (i) => i.bucket === "dormant"),
    live: account(items, (i) => i.bucket === "live"),
    byKind,
    reclaimable: { items: items.filter((i) => i.reclaimable).length, tokens: reclaimableTokens },
    redundant: account(items, (i) => i.redundant),
    total: { tokens: floor.tokens + conversation, conversation },
  };
}
