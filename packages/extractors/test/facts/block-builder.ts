// Hand-built blocks shaped like the ledger reader's, for unit tests of the facts accumulator.
import type { FactsBlock } from "@context-fold/extractors";

export class BlockBuilder {
  readonly blocks: FactsBlock[] = [];
  private turn = 0;
  private calls = 0;

  private push(b: Omit<FactsBlock, "index" | "turn">): FactsBlock {
    const block: FactsBlock = { ...b, index: this.blocks.length, turn: this.turn };
    this.blocks.push(block);
    return block;
  }

  user(text: string): this {
    this.turn++;
    this.push({ kind: "user", role: "user", text });
    return this;
  }

  say(text: string): this {
    this.push({ kind: "text", role: "assistant", text });
    return this;
  }

  /** A tool call and its result. */
  tool(toolName: string, args: Record<string, unknown>, result: string, isError = false): this {
    const toolCallId = `call_${++this.calls}`;
    this.push({ kind: "toolCall", role: "assistant", toolName, toolCallId, args, text: JSON.stringify(args) });
    this.push({ kind: "toolResult", role: "toolResult", toolName, toolCallId, isError, text: result });
    return this;
  }

  /** A bash tool run the way Pi reports it (non-zero exit: isError and the trailer). */
  bash(command: string, output: string, exitCode = 0): this {
    const text = exitCode === 0 ? output : `${output}\n\nCommand exited with code ${exitCode}`;
    return this.tool("bash", { command }, text, exitCode !== 0);
  }

  /** A user `!cmd`. */
  bang(command: string, output: string, exitCode = 0): this {
    this.push({ kind: "bash", role: "bashExecution", toolName: "bash", args: { command }, exitCode, isError: exitCode !== 0, text: output });
    return this;
  }

  read(path: string, content: string): this {
    return this.tool("read", { path }, content);
  }

  edit(path: string, newText = "x", ok = true): this {
    return this.tool(
      "edit",
      { path, oldText: "old", newText },
      ok ? `Successfully replaced text in ${path}.` : `Could not find the exact text in ${path}.`,
      !ok,
    );
  }

  write(path: string, content: string): this {
    return this.tool("write", { path, content }, `Successfully wrote ${content.length} bytes to ${path}`);
  }

  /** Blocks grouped by turn, in order (for incremental feeding). */
  byTurn(): FactsBlock[][] {
    const out: FactsBlock[][] = [];
    let last = -1;
    for (const b of this.blocks) {
      if (b.turn !== last) {
        out.push([]);
        last = b.turn;
      }
      out[out.length - 1]?.push(b);
    }
    return out;
  }
}
