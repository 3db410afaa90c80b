// `context-fold inventory <session.jsonl>`: the pre-compaction accounting of the session's current
// context (floor, tool output per tool and item with age/dormant/redundant/reclaimable, dormant content),
// the same accounting as the Pi extension's /context-inventory, without a live Pi (the floor is unknown
// unless given).
//
// A large session (see STREAM_ABOVE_BYTES) is read as its shape, of which only the context plan is kept
// (`inventoryPlan`: the lineage's route, which lineage entries are in context, the context edits), then
// streamed once: each context block is taken into the inventory as it goes by and its text let go
// (`InventoryAccumulator`: a few numbers per block, its anchor, an output's subject). The items are made
// one at a time as they are printed (`lazyItems`), the JSON written item by item (`pieceByPiece`), and
// the text output's largest items picked in one pass: nothing holds every item as an object.
import { type ContextInventory, inventoryAlong, type InventoryPlan, inventoryPlan, renderInventory, sessionInventory, type InventoryOptions } from "@context-fold/extractors";
import { archivalUnion, CompactBlockSet, CompactCodeAssigner, type FoldIndexRecord, type LeanReadOutcome, recordSpans, SeedIndexError, seedIndexPath } from "@context-fold/seed-index-format";
import type { Command } from "commander";
import { freeHeapPages } from "../free-heap-pages.js";
import { pieceByPiece } from "../json-output.js";
import { CliError, emit, warn } from "../output.js";
import { readIndexOutcomes } from "../seed-view.js";
import { readSessionForCli, readSessionShapeForCli, streamsSession } from "../session-input.js";
import { stackedBar } from "../stacked-bar.js";

interface InventoryCliOptions {
  systemPromptTokens?: string;
  toolsTokens?: string;
  dormantTurns?: string;
  top?: string;
  json?: boolean;
}

function wholeNumber(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d{1,9}$/.test(value)) throw new CliError(`${option} must be a whole number, got "${value}"`, { code: "BAD_OPTION" });
  return Number(value);
}

/**
 * From the seed index: the codes already handed out (kept as they are) and the spans the extension's
 * threshold/cap folds put behind stubs (folded in the live context; a `compact` record's spans were compacted).
 */
function seedFoldsOf(records: readonly FoldIndexRecord[]): Required<Pick<InventoryOptions, "codes" | "folded">> {
  const codes: [string, string][] = [];
  const folded = new Set<string>();
  for (const record of records) {
    for (const span of record.spans) {
      codes.push([span.blockId, span.code]);
      if (record.trigger !== "compact") folded.add(span.blockId);
    }
  }
  return { codes, folded };
}

/**
 * `seedFoldsOf` for a session that streams: the index's records read without their spans (after `index`
 * on a 1 GB session the index holds a million spans on one 213 MB line), which are read back span by
 * span into a `CompactCodeAssigner` and a `CompactBlockSet` (tables of numbers, no anchor held) when
 * first asked — when the items are made, after the streamed read has let its own tables go, so the two
 * are not in memory at once. A file that no longer reads as it did then is warned of as a broken index is.
 */
class SeedFoldsOnUse {
  #tables: { codes: CompactCodeAssigner; folded: CompactBlockSet } | undefined;

  constructor(
    private readonly records: readonly FoldIndexRecord[],
    private readonly outcomes: readonly LeanReadOutcome[],
  ) {}

  #read(): { codes: CompactCodeAssigner; folded: CompactBlockSet } {
    if (this.#tables !== undefined) return this.#tables;
    // Sized for every span up front: a table grown to a million entries is copied on the way (48 MB at once, not 32).
    const spans = recordSpans(this.records, this.outcomes);
    let folded = new CompactBlockSet(recordSpans(this.records.filter((record) => record.trigger !== "compact"), this.outcomes).count);
    let codes = new CompactCodeAssigner([], spans.count);
    try {
      spans.forEach((span, record) => {
        codes.keep(span.blockId, span.code);
        if (record.trigger !== "compact") folded.add(span.blockId);
      });
    } catch (error) {
      if (!(error instanceof SeedIndexError)) throw error;
      warn(`context-fold: ${error.message}; folds are not shown`);
      codes = new CompactCodeAssigner();
      folded = new CompactBlockSet();
    }
    this.#tables = { codes, folded };
    return this.#tables;
  }

  codeOf(blockId: string): string | undefined {
    return this.#read().codes.codeOf(blockId);
  }

  holds(code: string): boolean {
    return this.#read().codes.holds(code);
  }

  holderOf(code: string): string | undefined {
    return this.#read().codes.holderOf(code);
  }

  has(anchor: string): boolean {
    return this.#read().folded.has(anchor);
  }
}

/** The seed index's codes and folds (`lean`: read on use, see `SeedFoldsOnUse`); a broken index is warned of, never fatal. */
async function seedFolds(file: string, lean: boolean): Promise<Required<Pick<InventoryOptions, "codes" | "folded">>> {
  try {
    const { outcomes } = await readIndexOutcomes(file, lean);
    const records = archivalUnion(outcomes);
    // No span to read back (no index yet, or none with spans): the pairs, as a session read whole has them.
    if (!lean || recordSpans(records, outcomes).count === 0) return seedFoldsOf(records);
    const onUse = new SeedFoldsOnUse(records, outcomes);
    return { codes: onUse, folded: onUse };
  } catch (error) {
    if (!(error instanceof SeedIndexError)) throw error;
    warn(`context-fold: ${error.message}; folds are not shown`);
    return { codes: [], folded: new Set<string>() };
  }
}

/** The seed index beside the session, when its id makes one. */
function seedIndexOf(file: string, id: string): string | undefined {
  try {
    return seedIndexPath(file, id);
  } catch (error) {
    if (!(error instanceof SeedIndexError)) throw error;
    return undefined;
  }
}

/** The session's shape read and let go: what the streamed inventory needs of it, and the session id. */
async function planOf(file: string): Promise<{ plan: InventoryPlan; id: string }> {
  const shape = await readSessionShapeForCli(file);
  return { plan: inventoryPlan(shape), id: shape.session.header.id };
}

/** The context as one stacked bar: floor (when known), tool output, dormant and live other content. */
export function inventoryBar(inventory: ContextInventory): string {
  const parts = [
    ...(inventory.floor.known ? [{ label: "floor", value: inventory.floor.tokens }] : []),
    { label: "tool output", value: inventory.toolOutput.tokens },
    { label: "other, dormant", value: inventory.dormant.tokens },
    { label: "other, live", value: inventory.live.tokens },
  ];
  return stackedBar(parts);
}

export function registerInventory(program: Command): void {
  program
    .command("inventory")
    .description("Context inventory of a session: floor, tool output per tool with age, dormant, redundant and reclaimable flags, dormant content")
    .argument("<session.jsonl>", "Pi session file")
    .option("--system-prompt-tokens <n>", "floor: tokens of the system prompt (unknown without a live Pi)")
    .option("--tools-tokens <n>", "floor: tokens of the tool declarations")
    .option("--dormant-turns <n>", "idle user turns after which content is dormant (default 4)")
    .option("--top <n>", "largest tool outputs listed in the text output (default 15)")
    .option("--json", "print the whole inventory (every in-context item) as one JSON document")
    .action(async (file: string, options: InventoryCliOptions) => {
      const systemPrompt = wholeNumber("--system-prompt-tokens", options.systemPromptTokens);
      const tools = wholeNumber("--tools-tokens", options.toolsTokens);
      const dormantTurns = wholeNumber("--dormant-turns", options.dormantTurns);
      const top = wholeNumber("--top", options.top);
      if (dormantTurns === 0) throw new CliError("--dormant-turns must be at least 1", { code: "BAD_OPTION" });
      // A large session (over STREAM_ABOVE_BYTES): its shape, of which only the plan is kept, then one streamed read.
      const streams = streamsSession(file);
      const read = streams ? await planOf(file) : { session: await readSessionForCli(file) };
      // The shape is let go with planOf: its pages go back before the stream (free-heap-pages.ts).
      if (streams) freeHeapPages();
      const indexFile = seedIndexOf(file, "plan" in read ? read.id : read.session.header.id);
      const folds = indexFile === undefined ? { codes: [], folded: new Set<string>() } : await seedFolds(indexFile, streams);
      const floor = { ...(systemPrompt === undefined ? {} : { systemPrompt }), ...(tools === undefined ? {} : { tools }) };
      const options_: InventoryOptions = {
        floor,
        codes: folds.codes,
        folded: folds.folded,
        ...(dormantTurns === undefined ? {} : { dormantTurns }),
      };
      let inventory: ContextInventory;
      if ("plan" in read) {
        inventory = await inventoryAlong(read.plan, options_, { lazyItems: true });
        pieceByPiece(inventory);
        pieceByPiece(inventory.items);
      } else inventory = sessionInventory(read.session, options_);
      emit(options.json === true, inventory, () => `${inventoryBar(inventory)}\n\n${renderInventory(inventory, top === undefined ? {} : { maxToolItems: top })}`);
    });
}
