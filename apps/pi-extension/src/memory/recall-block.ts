// The fenced block auto-recall puts before a prompt: the best memories first, as many as fit the
// token budget (≈ 4 characters a token, like the rest of the extension), each with its date and id
// so the model (or the user, with /memory forget) can refer to it. Pure.
import type { RecalledMemory } from "./memory-service.js";

export const BLOCK_OPEN = "<memories source=\"context-fold\">";
export const BLOCK_CLOSE = "</memories>";
const HEADER = "Memories recalled from earlier sessions for this prompt. They are claims from then, not checked now: use them as leads and verify before relying on them.";
const LINE_MAX = 600;

export interface RecallBlock {
  readonly text: string;
  /** Memory ids in the block, in order. */
  readonly ids: readonly string[];
}

function line(m: RecalledMemory): string {
  const memory = m.hit.memory;
  const text = memory.text.replaceAll(/\s+/g, " ").trim();
  const clipped = text.length > LINE_MAX ? `${text.slice(0, LINE_MAX - 1)}…` : text;
  const date = memory.date === null ? "" : `[${memory.date.slice(0, 10)}] `;
  return `- ${date}${clipped} (memory ${memory.id}${m.bankId === "" ? "" : `, bank ${m.bankId}`})`;
}

/** The block for `memories` (best first) within `budgetTokens`; undefined when none fits or none is given. */
export function renderRecallBlock(memories: readonly RecalledMemory[], budgetTokens: number): RecallBlock | undefined {
  const budget = budgetTokens * 4;
  const lines: string[] = [];
  const ids: string[] = [];
  let used = BLOCK_OPEN.length + HEADER.length + BLOCK_CLOSE.length + 3;
  const seen = new Set<string>();
  for (const m of memories) {
    if (seen.has(m.hit.memory.id)) continue;
    seen.add(m.hit.memory.id);
    const l = line(m);
    if (used + l.length + 1 > budget) continue;
    used += l.length + 1;
    lines.push(l);
    ids.push(m.hit.memory.id);
  }
  if (lines.length === 0) return undefined;
  return { text: [BLOCK_OPEN, HEADER, ...lines, BLOCK_CLOSE].join("\n"), ids };
}
