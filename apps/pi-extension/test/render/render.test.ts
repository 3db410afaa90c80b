// The renderers' pure parts: recall text styled by role (collapsed to its first lines with a count of the
// rest), and the inventory's stacked bar (cells add up exactly, reclaimable parts marked, deterministic).
import { describe, expect, test } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import type { ContextInventory, InventoryItem } from "@context-fold/extractors";
import { foldCompletions } from "../../src/fold-completions.js";
import type { FoldedSpan } from "../../src/fold/fold-state.js";
import { BAR_WIDTH, inventoryBar, shareCells } from "../../src/render/inventory-bar.js";
import { COLLAPSED_LINES, type Paint, styleRecallText } from "../../src/render/recall-render.js";

const tag: Paint = (role, text) => `<${role}>${text}`;

describe("recall rendering", () => {
  const text = ["Found 3 matches for \"x\" across 1 segment (scope lineage) — page 1/1", "", "--- #1-#20 turn 1 (3/20 entries match) ---", ...Array.from({ length: 20 }, (_, i) => `${i % 7 === 0 ? ">" : " "} #${String(i + 1)} [user] line ${String(i)}`)].join("\n");

  test("roles: title, segment header, matches, plain lines; collapsed shows the first lines and how many more", () => {
    const collapsed = styleRecallText(text, false, tag).split("\n");
    expect(collapsed).toHaveLength(COLLAPSED_LINES + 1);
    expect(collapsed[0]).toMatch(/^<title>Found 3 matches/);
    expect(collapsed[2]).toBe("<segment>--- #1-#20 turn 1 (3/20 entries match) ---");
    expect(collapsed[3]).toBe("<match>> #1 [user] line 0");
    expect(collapsed[4]).toBe("<text>  #2 [user] line 1");
    expect(collapsed[COLLAPSED_LINES]).toBe(`<more>… ${String(23 - COLLAPSED_LINES)} more lines (expand to see all)`);
    const expanded = styleRecallText(text, true, tag).split("\n");
    expect(expanded).toHaveLength(23);
    expect(expanded.filter((l) => l.startsWith("<match>"))).toHaveLength(3);
  });

  test("linear on adversarial text: a million newlines inside and at the end", { timeout: LINEAR_TIME_MS }, () => {
    const nl = "\n".repeat(1 << 20);
    const out = styleRecallText(`head${nl}tail${nl}`, false, tag).split("\n");
    expect(out[0]).toBe("<title>head");
    expect(out[out.length - 1]).toBe(`<more>… ${String((1 << 20) + 1 - COLLAPSED_LINES)} more lines (expand to see all)`);
  });

  test("an error is painted as one, whole", () => {
    expect(styleRecallText("context_recall failed: boom\nmore", false, tag)).toBe("<title>context_recall failed: boom\n<text>more");
    expect(styleRecallText("context_recall failed: boom\nmore", false, tag, true)).toBe("<error>context_recall failed: boom\n<error>more");
  });
});

function item(bucket: InventoryItem["bucket"], tokens: number, reclaimableTokens: number): InventoryItem {
  return { index: 0, kind: "x", bucket, turn: 0, ageTurns: 0, idleTurns: 0, tokens, dormant: bucket === "dormant", redundant: false, folded: false, reclaimable: reclaimableTokens > 0, reclaimableTokens };
}

function inventory(floor: number, tool: number, toolReclaim: number, dormant: number, dormantReclaim: number, live: number): ContextInventory {
  const items = [item("toolOutput", tool, toolReclaim), item("dormant", dormant, dormantReclaim), item("live", live, 0)];
  return {
    currentTurn: 3,
    dormantTurns: 2,
    stubTokens: 30,
    estimator: "chars/4",
    floor: { known: true, tokens: floor, systemPrompt: floor, tools: 0 },
    items,
    toolOutput: { items: 1, tokens: tool, byTool: [] },
    dormant: { items: 1, tokens: dormant },
    live: { items: 1, tokens: live },
    byKind: [],
    reclaimable: { items: 2, tokens: toolReclaim + dormantReclaim },
    redundant: { items: 0, tokens: 0 },
    total: { tokens: floor + tool + dormant + live, conversation: tool + dormant + live },
  };
}

describe("inventory bar", () => {
  test("cells add up exactly, by the largest remainder, ties to the earlier part", () => {
    expect(shareCells([1, 1, 1], 10)).toEqual([4, 3, 3]);
    expect(shareCells([0, 0], 10)).toEqual([0, 0]);
    for (const values of [[3, 7, 11, 0, 5], [1, 1_000_000], [999, 1, 1, 1]]) expect(shareCells(values, BAR_WIDTH).reduce((a, b) => a + b, 0)).toBe(BAR_WIDTH);
  });

  test("floor / tool output / dormant / live in order, reclaimable marked inside its bucket, free space against the window", () => {
    const [bar, legend] = inventoryBar(inventory(2000, 4000, 3000, 2000, 1000, 1000), 20_000);
    // 2000/1000/3000/1000/1000/1000/11000 of 20000 → 5, 2.5, 7.5, 2.5, 2.5, 2.5, 27.5 cells; the three
    // cells left go to the earliest halves.
    expect(bar).toBe(`[${"█".repeat(5)}${"▓".repeat(3)}${"×".repeat(8)}${"▒".repeat(3)}${"×".repeat(2)}${"░".repeat(2)}${" ".repeat(27)}] 9000 tokens of 20000 (45%)`);
    expect(legend).toBe("█ floor 2000  ▓ tool output 4000  ▒ dormant 2000  ░ live 1000  × reclaimable 4000");
    // Without a window: the bar is the used tokens only.
    const [full] = inventoryBar(inventory(2000, 4000, 3000, 2000, 1000, 1000));
    expect(full).not.toContain(" ]");
    expect([...(full ?? "").slice(1, BAR_WIDTH + 1)].every((c) => "█▓▒░×".includes(c))).toBe(true);
  });
});

describe("/context-fold completion", () => {
  test("subcommands, codes after `unfold `, nothing for other text; linear on a 1 MB run of spaces", { timeout: LINEAR_TIME_MS }, () => {
    const spans = [
      { code: "aaaaaaaaaa", blockId: "r:1", seq: 0, turn: 1, kind: "tool", tool: "bash", bytes: 100, lines: 1, firstLine: "x" },
      { code: "abbbbbbbbb", blockId: "r:2", seq: 1, turn: 2, kind: "thinking", bytes: 200, lines: 1, firstLine: "y" },
    ] as unknown as FoldedSpan[];
    expect(foldCompletions("", spans)?.map((i) => i.value)).toEqual(["status", "unfold ", "compact"]);
    expect(foldCompletions("unfold a", spans)?.map((i) => i.value)).toEqual(["unfold abbbbbbbbb", "unfold aaaaaaaaaa"]);
    expect(foldCompletions("unfold ab", spans)?.map((i) => i.description)).toEqual(["thinking, 200 bytes, turn 2"]);
    expect(foldCompletions("status now", spans)).toBeNull();
    const spaces = " ".repeat(1 << 20);
    expect(foldCompletions(`unfold${spaces}x${spaces}`, spans)).toBeNull();
    expect(foldCompletions(`unfold${spaces}`, spans)?.length).toBe(2);
  });
});
