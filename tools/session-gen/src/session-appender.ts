// The low level of a generated session: Pi messages appended through its SessionManager on a seeded
// clock (user text, assistant turns with usage, tool results cut to Pi's own output limits, user `!cmd`
// runs), plus the ground-truth lists the scripted turns (session-writer.ts) fill as they go.
import { statSync } from "node:fs";
import { DEFAULT_MAX_BYTES, formatSize, truncateHead, truncateTail, type SessionManager } from "@earendil-works/pi-coding-agent";
import type { Needle } from "./manifest.js";
import type { Failure } from "./output-corpus.js";
import type { SeededRandom } from "./random.js";
import type { SeededClock } from "./seeded-pi.js";

export type PiMessage = Parameters<SessionManager["appendMessage"]>[0];
export type AssistantPart = { type: "text"; text: string } | { type: "thinking"; thinking: string; thinkingSignature: string } | { type: "toolCall"; id: string; name: string; arguments: Record<string, unknown> };

/** Fields of a needle known while writing; `onLineage` is settled once the leaf is known. */
export type PlantedNeedle = Omit<Needle, "onLineage">;

export interface ToolAction {
  readonly name: "read" | "edit" | "write" | "bash";
  readonly args: Record<string, unknown>;
  output: string;
  readonly isError: boolean;
  readonly details?: Record<string, unknown>;
  /** A needle to plant deep inside the output, if this action carries one. */
  needle?: { kind: Needle["kind"]; value: string };
  onWritten?: (entryId: string, toolCallId: string) => void;
}

export interface PendingFailure {
  readonly failure: Failure;
  readonly fixTurn: number;
}

export interface TurnRecord {
  readonly turn: number;
  readonly entryIds: string[];
  plain: boolean;
  readonly onBranch: boolean;
}


export class SessionAppender {
  readonly needles: PlantedNeedle[] = [];
  readonly commits: { hash: string; subject: string; turn: number; entryId: string }[] = [];
  readonly corrections: { text: string; entryId: string }[] = [];
  readonly preferences: { text: string; entryId: string }[] = [];
  readonly modified: { path: string; entryId: string }[] = [];
  readonly created: { path: string; entryId: string }[] = [];
  readonly fixed: { line: string; entryId: string }[] = [];
  readonly openFailures: { failure: Failure; entryId: string }[] = [];
  readonly branchFacts: string[] = [];
  readonly compactions: { entryId: string; firstKeptEntryId: string }[] = [];
  readonly branchPoints: string[] = [];
  readonly turns: TurnRecord[] = [];
  foundingRequest = "";
  turn = 0;

  protected pending: PendingFailure[] = [];
  protected current: TurnRecord | undefined;
  protected onBranch = false;
  protected readonly usedHashes = new Set<string>();
  protected readonly createdPaths = new Set<string>();
  protected readonly bigResults: { entryId: string; turn: number }[] = [];
  protected contextChars = 0;
  protected turnsSinceCompaction: string[] = [];
  protected readFiles = new Set<string>();

  constructor(
    protected readonly sm: SessionManager,
    protected readonly rng: SeededRandom,
    protected readonly clock: SeededClock,
    protected readonly file: string,
    /** Scales the long outputs down for small size targets (1 for ≥ 1 MiB), so 100 KB stays ~100 KB. */
    protected readonly scale = 1,
  ) {}

  /** A line count for a long output: "hundreds of lines" at full scale. */
  protected lines(min: number, max: number): number {
    return Math.max(12, Math.round(this.rng.int(min, max) * this.scale));
  }

  bytes(): number {
    try {
      return statSync(this.file).size;
    } catch {
      return 0; // Pi creates the file lazily, at the first user message.
    }
  }

  protected tick(minMs: number, maxMs: number): number {
    this.clock.now += this.rng.int(minMs, maxMs);
    return this.clock.now;
  }

  protected track(id: string): string {
    this.current?.entryIds.push(id);
    return id;
  }

  protected append(message: PiMessage): string {
    this.contextChars += JSON.stringify(message).length;
    return this.track(this.sm.appendMessage(message));
  }

  setup(): void {
    this.tick(200, 900);
    this.sm.appendModelChange("anthropic", "claude-sonnet-4-5");
    this.tick(1, 5);
    this.sm.appendThinkingLevelChange("medium");
  }

  protected userText(text: string): string {
    this.tick(15_000, 240_000);
    return this.append({ role: "user", content: text, timestamp: this.clock.now });
  }

  protected assistant(parts: AssistantPart[], stopReason: "toolUse" | "stop"): string {
    this.tick(2_000, 25_000);
    const output = Math.ceil(JSON.stringify(parts).length / 4);
    const input = 2_000 + Math.ceil(this.contextChars / 4);
    const cacheRead = Math.floor(input * 0.8);
    const message = {
      role: "assistant" as const,
      content: parts,
      api: "anthropic-messages",
      provider: "anthropic",
      model: "claude-sonnet-4-5",
      responseId: `msg_01${this.rng.base62(22)}`,
      usage: {
        input: input - cacheRead,
        output,
        cacheRead,
        cacheWrite: 0,
        totalTokens: input + output,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      },
      stopReason,
      timestamp: this.clock.now,
    };
    return this.append(message as PiMessage);
  }

  /**
   * Pi's own output limits (2000 lines / 50 KB, its truncate functions and notices): bash keeps the
   * tail and names the full output file, read keeps the head and says where to continue.
   */
  protected piTruncate(action: ToolAction): { text: string; details: Record<string, unknown> | undefined } {
    if (action.name === "bash") {
      const truncation = truncateTail(action.output);
      if (!truncation.truncated) return { text: action.output, details: action.details };
      const fullOutputPath = `/tmp/pi-bash-${this.rng.hex(16)}.log`;
      const start = truncation.totalLines - truncation.outputLines + 1;
      const notice = truncation.truncatedBy === "lines"
        ? `[Showing lines ${start}-${truncation.totalLines} of ${truncation.totalLines}. Full output: ${fullOutputPath}]`
        : `[Showing lines ${start}-${truncation.totalLines} of ${truncation.totalLines} (${formatSize(DEFAULT_MAX_BYTES)} limit). Full output: ${fullOutputPath}]`;
      return { text: `${truncation.content}\n\n${notice}`, details: { truncation, fullOutputPath } };
    }
    if (action.name === "read") {
      const truncation = truncateHead(action.output);
      if (!truncation.truncated) return { text: action.output, details: action.details };
      const limit = truncation.truncatedBy === "lines" ? "" : ` (${formatSize(DEFAULT_MAX_BYTES)} limit)`;
      return { text: `${truncation.content}\n\n[Showing lines 1-${truncation.outputLines} of ${truncation.totalLines}${limit}. Use offset=${truncation.outputLines + 1} to continue.]`, details: { truncation } };
    }
    return { text: action.output, details: action.details };
  }

  protected toolResult(toolCallId: string, action: ToolAction): string {
    this.tick(150, 30_000);
    const { text, details } = this.piTruncate(action);
    const message = {
      role: "toolResult" as const,
      toolCallId,
      toolName: action.name,
      content: [{ type: "text" as const, text }],
      ...(details ? { details } : {}),
      isError: action.isError,
      timestamp: this.clock.now,
    };
    const id = this.append(message as PiMessage);
    if (action.output.length > 8_000 && !action.needle && !this.onBranch) this.bigResults.push({ entryId: id, turn: this.turn });
    return id;
  }

  /** A user `!cmd`; `!!cmd` (excludeFromContext) keeps the output out of the model's context. */
  protected bashExecution(command: string, output: string, exitCode: number, excludeFromContext: boolean): string {
    this.tick(5_000, 60_000);
    const message = { role: "bashExecution", command, output, exitCode, cancelled: false, truncated: false, timestamp: this.clock.now, ...(excludeFromContext ? { excludeFromContext: true } : {}) };
    return this.append(message as PiMessage);
  }

}
