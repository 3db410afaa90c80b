// Hand-built blocks for unit tests of the seed extraction (shape of @context-fold/ledger-reader's Block).
import type { Block } from "@context-fold/ledger-reader";

type Extra = Partial<Omit<Block, "index" | "kind" | "text">>;

export class BlockList {
  readonly blocks: Block[] = [];
  #turn = 0;

  #push(kind: Block["kind"], text: string, extra: Extra): Block {
    const index = this.blocks.length;
    const block: Block = {
      index,
      entryId: `e${String(index).padStart(7, "0")}`,
      entryPosition: index,
      kind,
      role: extra.role ?? kind,
      turn: this.#turn,
      text,
      timestamp: `2026-01-01T00:00:${String(index % 60).padStart(2, "0")}.000Z`,
      line: index + 2,
      byteOffset: index * 100,
      ...extra,
    };
    this.blocks.push(block);
    return block;
  }

  user(text: string): Block {
    this.#turn += 1;
    return this.#push("user", text, { role: "user" });
  }

  text(text: string, responseId = `resp${this.blocks.length}`, part = 0): Block {
    return this.#push("text", text, { role: "assistant", anchor: `a:${responseId}:p${part}`, partIndex: part });
  }

  call(toolName: string, args: Record<string, unknown>, id = `call_${this.blocks.length}`): string {
    this.#push("toolCall", JSON.stringify(args), { role: "assistant", toolName, toolCallId: id, args });
    return id;
  }

  result(toolCallId: string, toolName: string, text: string, extra: Extra = {}): Block {
    return this.#push("toolResult", text, { role: "toolResult", toolName, toolCallId, anchor: `r:${toolCallId}`, ...extra });
  }

  tool(toolName: string, args: Record<string, unknown>, output: string, extra: Extra = {}): Block {
    const id = this.call(toolName, args);
    return this.result(id, toolName, output, extra);
  }

  bang(command: string, output: string, exitCode = 0): Block {
    return this.#push("bash", output, { role: "bashExecution", toolName: "bash", args: { command }, exitCode, isError: exitCode !== 0 });
  }
}
