// Inventory blocks from the messages a live Pi context holds (AgentMessage objects, folded stubs and
// all), so the extension can account for exactly what the model receives without re-reading the file.
// The blocks themselves come from ledger-reader's one message converter; this adds turns and tokens.
import { blocksOfMessage } from "@context-fold/ledger-reader";
import { estimateTextTokens } from "./estimate.js";
import type { InventoryBlock } from "./types.js";

/** What an image part is counted as (the Pi extension's estimate; providers bill far above base64/4). */
export const INVENTORY_IMAGE_TOKENS = 1200;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** A non-empty id or name, else nothing (an empty one names nothing in the inventory). */
function named<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value === undefined || value.length === 0 ? {} : { [key]: value }) as { [P in K]?: string };
}

export interface MessageBlocksOptions {
  /** Token estimator for text (default ceil(UTF-8 bytes / 4)); images add `INVENTORY_IMAGE_TOKENS` each. */
  readonly estimate?: (text: string) => number;
}

/**
 * One block per user message, assistant part, tool result, `!cmd`, custom message and summary, in
 * message order. `index` is the position among the returned blocks; `turn` counts user messages from
 * the first message given (a compaction summary opens turn 0), which is all ages need.
 */
export function messageBlocks(messages: Iterable<unknown>, options: MessageBlocksOptions = {}): InventoryBlock[] {
  const estimate = options.estimate ?? estimateTextTokens;
  const out: InventoryBlock[] = [];
  let turn = 0;
  const push = (block: Omit<InventoryBlock, "index" | "turn">, images = 0): void => {
    const withTokens = images > 0 ? { ...block, tokens: estimate(block.text) + images * INVENTORY_IMAGE_TOKENS } : block;
    out.push({ ...withTokens, index: out.length, turn });
  };
  for (const message of messages) {
    if (!isRecord(message)) continue;
    // A `!cmd` the user kept out of context (`!!cmd`) is not sent: nothing to account.
    if (message["role"] === "bashExecution" && message["excludeFromContext"] === true) continue;
    if (message["role"] === "user") turn += 1;
    // Any other message that carries content (an extension's own kind) is sent as such: it counts as a
    // custom message.
    const blocks = blocksOfMessage(message) ?? blocksOfMessage({ role: "custom", content: message["content"] }) ?? [];
    for (const block of blocks) {
      const ids = { ...named("toolName", block.toolName), ...named("toolCallId", block.toolCallId) };
      switch (block.kind) {
        case "toolCall":
          // Text as the ledger reader gives it (the arguments); the tool name is sent too and counted.
          push({ kind: "toolCall", text: block.text, tokens: estimate(`${block.toolName ?? ""}${block.text}`), args: block.args ?? {}, ...ids });
          break;
        case "bash": {
          // The command is sent too: count it with the output.
          const command = typeof block.args?.["command"] === "string" ? block.args["command"] : "";
          push({ kind: "bash", text: block.text, toolName: "bash", args: { command }, tokens: estimate(block.text) + estimate(command) });
          break;
        }
        case "toolResult":
          push({ kind: "toolResult", text: block.text, ...named("toolCallId", block.toolCallId), ...named("toolName", block.toolName), ...named("anchor", block.anchor) }, block.images);
          break;
        default:
          push({ kind: block.kind, text: block.text, ...named("anchor", block.anchor) }, block.images);
      }
    }
  }
  return out;
}
