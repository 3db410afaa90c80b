// Inventory blocks from the messages a live Pi context holds (AgentMessage objects, folded stubs and
// all), so the extension can account for exactly what the model receives without re-reading the file.
import { assistantPartText, joinTextParts, partAnchor, resultAnchor } from "@context-fold/seed-index-format";
import { estimateTextTokens } from "./estimate.js";
import type { InventoryBlock } from "./types.js";

/** What an image part is counted as (the Pi extension's estimate; providers bill far above base64/4). */
export const INVENTORY_IMAGE_TOKENS = 1200;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function str(value: unknown): string | undefined {
  return typeof value === "string" && value.length > 0 ? value : undefined;
}

function imageCount(content: unknown): number {
  if (!Array.isArray(content)) return 0;
  let n = 0;
  for (const part of content as unknown[]) if (isRecord(part) && part["type"] === "image") n += 1;
  return n;
}

function safe(make: () => string): string | undefined {
  try {
    return make();
  } catch {
    return undefined; // an id the anchor grammar refuses: the block is accounted, never foldable
  }
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
    const role = message["role"];
    const content = message["content"];
    switch (role) {
      case "user":
        turn += 1;
        push({ kind: "user", text: joinTextParts(content) }, imageCount(content));
        break;
      case "assistant": {
        if (!Array.isArray(content)) break;
        const responseId = str(message["responseId"]);
        (content as unknown[]).forEach((part, partIndex) => {
          if (!isRecord(part)) return;
          if (part["type"] === "toolCall") {
            const args = isRecord(part["arguments"]) ? part["arguments"] : {};
            const name = str(part["name"]);
            const id = str(part["id"]);
            const json = JSON.stringify(part["arguments"] ?? {});
            // Text as the ledger reader gives it (the arguments); the tool name is sent too and counted.
            push({ kind: "toolCall", text: json, tokens: estimate(`${name ?? ""}${json}`), args, ...(name === undefined ? {} : { toolName: name }), ...(id === undefined ? {} : { toolCallId: id }) });
            return;
          }
          const text = assistantPartText(part);
          if (text === undefined) return;
          const anchor = responseId === undefined ? undefined : safe(() => partAnchor(responseId, partIndex));
          push({ kind: part["type"] === "thinking" ? "thinking" : "text", text, ...(anchor === undefined ? {} : { anchor }) });
        });
        break;
      }
      case "toolResult": {
        const id = str(message["toolCallId"]);
        const name = str(message["toolName"]);
        const anchor = id === undefined ? undefined : safe(() => resultAnchor(id));
        push(
          { kind: "toolResult", text: joinTextParts(content), ...(id === undefined ? {} : { toolCallId: id }), ...(name === undefined ? {} : { toolName: name }), ...(anchor === undefined ? {} : { anchor }) },
          imageCount(content),
        );
        break;
      }
      case "bashExecution": {
        if (message["excludeFromContext"] === true) break;
        const command = typeof message["command"] === "string" ? message["command"] : "";
        const output = typeof message["output"] === "string" ? message["output"] : "";
        // The command is sent too: count it with the output.
        push({ kind: "bash", text: output, toolName: "bash", args: { command }, tokens: estimate(output) + estimate(command) });
        break;
      }
      case "compactionSummary":
        push({ kind: "compaction", text: typeof message["summary"] === "string" ? message["summary"] : "" });
        break;
      case "branchSummary":
        push({ kind: "branchSummary", text: typeof message["summary"] === "string" ? message["summary"] : "" });
        break;
      default:
        // custom (extension) messages and anything else that carries content
        push({ kind: "custom", text: joinTextParts(content) }, imageCount(content));
    }
  }
  return out;
}
