// The window's blocks as the streamed `compact` keeps them. The summary reads a window's blocks in three
// places only: `briefTail` (the last BRIEF_MAX_LINES brief lines in full, a count of the earlier ones),
// `windowActivity` (commands run and whether their results failed) and the range and count of the
// stats. So the blocks from the BRIEF_MAX_LINES-th line-making block from the end onwards are kept whole,
// and each earlier one is replaced, once it falls out of that tail, by what those readers take of it:
// a shared stand-in of the same brief weight (a line or none), or a copy without text for a command, its
// result or a bash block. On a 1 GB session whose window is the whole session, memory holds one slot per
// block, not the window's text. The output is unchanged (tests compare it with the whole read's).
import { toolCommand, trailingExitCode } from "@context-fold/extractors";
import type { Block } from "@context-fold/ledger-reader";
import { briefLines } from "./brief.js";
import { BRIEF_MAX_LINES } from "./fit-budget.js";

/** Stands for an earlier block that makes a brief line and that no other reader looks at (only counted). */
const LINE = Object.freeze({ index: -1, kind: "user", text: "" }) as unknown as Block;
/** Stands for an earlier block that makes no brief line and that no other reader looks at. */
const NO_LINE = Object.freeze({ index: -1, kind: "thinking", text: "" }) as unknown as Block;
/**
 * Characters of a command's result kept when it says an exit code: its end, where the code is said
 * (`trailingExitCode` reads the last 400; the code found is checked, never assumed).
 */
const RESULT_TAIL = 400;

/** A copy of `s` that shares no memory with it (a slice of a long string would keep all of it alive). */
function detached(s: string): string {
  return JSON.parse(JSON.stringify(s)) as string;
}

/** What `windowActivity` and the brief's counts read of a block, with the given text. */
function copyWithout(block: Block, text: string): Block {
  const { index, kind, toolName, toolCallId, args, isError, exitCode } = block as Block & { exitCode?: number; args?: unknown; isError?: boolean; toolName?: string; toolCallId?: string };
  return { index, kind, toolName, toolCallId, args, isError, exitCode, text } as unknown as Block;
}

export class LeanWindow {
  /** The window's blocks in lineage order: earlier ones lean, the brief's tail whole. */
  readonly blocks: Block[] = [];
  /** blocks[whole …] are kept whole. */
  private whole = 0;
  /** Positions in `blocks` of the whole blocks that make a brief line (at most BRIEF_MAX_LINES + 1). */
  private readonly lineMakers: number[] = [];
  /** Tool call ids of calls that ran a command (`windowActivity` pairs their results with them). */
  private readonly commandCalls = new Set<string>();

  add(block: Block): void {
    const b = block as Block & { toolName?: string; toolCallId?: string; args?: Readonly<Record<string, unknown>> };
    if (b.kind === "toolCall" && b.toolCallId !== undefined && toolCommand(b.toolName, b.args) !== undefined) this.commandCalls.add(b.toolCallId);
    this.blocks.push(block);
    if (briefLines([block]).length === 0) return;
    this.lineMakers.push(this.blocks.length - 1);
    if (this.lineMakers.length <= BRIEF_MAX_LINES) return;
    const oldest = this.lineMakers.shift() ?? -1;
    for (let i = this.whole; i <= oldest; i++) {
      const held = this.blocks[i];
      if (held !== undefined) this.blocks[i] = this.lean(held, i === 0);
    }
    this.whole = oldest + 1;
  }

  /** An earlier block as the readers see it; the first keeps its #N (the stats' range starts there). */
  private lean(block: Block, first: boolean): Block {
    const b = block as Block & { toolCallId?: string; isError?: boolean };
    switch (b.kind) {
      case "toolCall":
        return b.toolCallId !== undefined && this.commandCalls.has(b.toolCallId) ? copyWithout(b, "") : first ? copyWithout(b, "") : LINE;
      case "toolResult": {
        const command = b.toolCallId !== undefined && this.commandCalls.has(b.toolCallId);
        if (!command) return b.isError === true || first ? copyWithout(b, "") : NO_LINE;
        // Most results say no exit code: no text then. Else the end `trailingExitCode` reads.
        const code = trailingExitCode(b.text);
        if (code === trailingExitCode("")) return copyWithout(b, "");
        const tail = b.text.length > RESULT_TAIL ? detached(b.text.slice(-RESULT_TAIL)) : b.text;
        return copyWithout(b, trailingExitCode(tail) === code ? tail : b.text);
      }
      case "bash":
        return copyWithout(b, "");
      default: {
        if (first) return copyWithout(b, briefLines([b]).length > 0 ? "x" : "");
        return briefLines([b]).length > 0 ? LINE : NO_LINE;
      }
    }
  }
}
