// Context inventory: flags on a hand-built case, totals that add up, the in-context selection, the floor,
// determinism, and the estimator shared with summary-formatter.
import { cp } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { contextEntries, readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { estimateTokens } from "@context-fold/summary-formatter";
import { describeShared, LINEAR_TIME_MS, sessionFixtures, tempDir } from "@context-fold/test-support";
import {
  buildInventory,
  type ContextInventory,
  contextBlocks,
  estimateTextTokens,
  InventoryAccumulator,
  type InventoryBlock,
  INVENTORY_IMAGE_TOKENS,
  messageBlocks,
  renderInventory,
  sessionInventory,
} from "@context-fold/extractors";

class Blocks {
  readonly list: InventoryBlock[] = [];
  turn = 0;
  #push(block: Omit<InventoryBlock, "index" | "turn">): number {
    const index = this.list.length;
    this.list.push({ ...block, index, turn: this.turn });
    return index;
  }
  user(text: string): number {
    this.turn += 1;
    return this.#push({ kind: "user", text });
  }
  thinking(text: string, id: string): number {
    return this.#push({ kind: "thinking", text, anchor: `a:${id}:p0` });
  }
  text(text: string, id: string): number {
    return this.#push({ kind: "text", text, anchor: `a:${id}:p1` });
  }
  tool(name: string, args: Record<string, unknown>, output: string, id: string): number {
    this.#push({ kind: "toolCall", text: JSON.stringify(args), toolName: name, toolCallId: id, args });
    return this.#push({ kind: "toolResult", text: output, toolName: name, toolCallId: id, anchor: `r:${id}` });
  }
}

const big = (label: string, kb = 4): string => `${label}\n${"x".repeat(kb * 1024)}`;

function checkTotals(inv: ContextInventory): void {
  const sum = inv.items.reduce((s, i) => s + i.tokens, 0);
  expect(inv.total.conversation).toBe(sum);
  expect(inv.total.tokens).toBe(sum + inv.floor.tokens);
  expect(inv.toolOutput.tokens + inv.dormant.tokens + inv.live.tokens).toBe(sum);
  expect(inv.toolOutput.items + inv.dormant.items + inv.live.items).toBe(inv.items.length);
  expect(inv.toolOutput.byTool.reduce((s, t) => s + t.tokens, 0)).toBe(inv.toolOutput.tokens);
  expect(inv.toolOutput.byTool.reduce((s, t) => s + t.items, 0)).toBe(inv.toolOutput.items);
  expect(inv.byKind.reduce((s, k) => s + k.tokens, 0)).toBe(sum);
  expect(inv.reclaimable.tokens).toBe(inv.items.reduce((s, i) => s + i.reclaimableTokens, 0));
  for (const item of inv.items) {
    expect(item.reclaimableTokens).toBe(item.reclaimable ? item.tokens - inv.stubTokens : 0);
    if (item.reclaimable) expect(item.dormant || item.redundant).toBe(true);
  }
}

describe("buildInventory on a hand-built session", () => {
  const b = new Blocks();
  b.user("fix the parser in src/parse.ts");
  const think1 = b.thinking(big("let me look at the parser first", 2), "resp1");
  const read1 = b.tool("read", { path: "src/parse.ts" }, big("export function parse() {}"), "c1");
  const test1 = b.tool("bash", { command: "pnpm test" }, big("FAIL test/parse.test.ts"), "c2");
  const grep1 = b.tool("grep", { pattern: "parse", path: "src" }, big("src/parse.ts:1"), "c3");
  const lib1 = b.tool("read", { path: "src/lib.ts" }, big("export const lib = 1;"), "c4");
  b.user("keep going");
  const read2 = b.tool("read", { path: "./src/parse.ts" }, big("export function parse() {}"), "c5");
  const read2range = b.tool("read", { path: "src/parse.ts", offset: 10, limit: 5 }, big("line 10"), "c6");
  b.user("now edit it");
  const edit = b.tool("edit", { path: "src/parse.ts", oldText: "a", newText: "b" }, "Successfully replaced text in src/parse.ts.", "c7");
  const test2 = b.tool("bash", { command: "pnpm test 2>&1 | tail -20" }, big("PASS test/parse.test.ts", 1), "c8");
  b.user("more");
  b.user("and more");
  b.user("and a last one");
  const tiny = b.tool("bash", { command: "ls" }, "a\nb", "c9");
  b.text("done; the parser works", "resp9");
  const inv = buildInventory(b.list, { cwd: "/home/dev/project" });
  const at = (index: number) => inv.items.find((i) => i.index === index);

  it("measures age from the latest turn", () => {
    expect(inv.currentTurn).toBe(6);
    expect(at(read1)?.ageTurns).toBe(5);
    expect(at(tiny)?.ageTurns).toBe(0);
  });

  it("flags a file read again later (same range) as reread, and not the read of another range", () => {
    expect(at(read1)).toMatchObject({ redundant: true, redundantReason: "reread", supersededBy: read2 });
    expect(at(read2range)?.redundantReason).toBe("superseded"); // the edit came after it
  });

  it("flags a read of a file edited afterwards as superseded by the edit", () => {
    expect(at(read2)).toMatchObject({ redundant: true, redundantReason: "superseded", supersededBy: edit + 0 });
  });

  it("flags the same command re-run later (2>&1 and | tail ignored) as rerun", () => {
    expect(at(test1)).toMatchObject({ redundant: true, redundantReason: "rerun", supersededBy: test2 });
    expect(at(test2)?.redundant).toBe(false);
    expect(at(grep1)?.redundant).toBe(false);
  });

  it("dormant: idle since the last reference to the subject, not since it was produced", () => {
    // src/lib.ts is never named again: idle 5 turns ≥ 4.
    expect(at(lib1)).toMatchObject({ idleTurns: 5, dormant: true, reclaimable: true });
    // The grep of src names a path referenced again (src/parse.ts is not "src"): idle since turn 1 as well.
    expect(at(grep1)?.dormant).toBe(true);
    // read1's file was edited at turn 3: idle 3 turns, not dormant (but redundant).
    expect(at(read1)).toMatchObject({ idleTurns: 3, dormant: false, reclaimable: true });
    expect(at(edit)?.dormant).toBe(false);
    // Old thinking is dormant content (its own bucket) and foldable.
    expect(at(think1)).toMatchObject({ bucket: "dormant", dormant: true, reclaimable: true });
    expect(at(think1)?.code).toMatch(/^[a-z2-7]{10}$/);
  });

  it("never marks small output, unanchored output or user text reclaimable", () => {
    expect(at(tiny)).toMatchObject({ reclaimable: false, reclaimableTokens: 0 });
    expect(inv.items.filter((i) => i.kind === "user").every((i) => i.bucket === "live" && !i.reclaimable)).toBe(true);
    const unanchored = buildInventory(b.list.map((block) => ({ ...block, anchor: undefined }) as InventoryBlock));
    expect(unanchored.reclaimable.items).toBe(0);
  });

  it("already folded anchors are reported folded and not reclaimable", () => {
    const folded = buildInventory(b.list, { folded: new Set(["r:c4"]) });
    expect(folded.items.find((i) => i.index === lib1)).toMatchObject({ folded: true, reclaimable: false });
  });

  it("totals add up; per-tool table matches the items", () => {
    checkTotals(inv);
    const bash = inv.toolOutput.byTool.find((t) => t.tool === "bash");
    expect(bash).toMatchObject({ items: 3, redundantItems: 1, oldestAgeTurns: 5 });
    expect(inv.floor).toEqual({ known: false, tokens: 0, systemPrompt: null, tools: null, note: "unknown (no live Pi)" });
  });

  it("takes the floor as tokens or measured text", () => {
    const withFloor = buildInventory(b.list, { floor: { systemPrompt: 1200, tools: "x".repeat(400) } });
    expect(withFloor.floor).toEqual({ known: true, tokens: 1300, systemPrompt: 1200, tools: 100 });
    checkTotals(withFloor);
    expect(withFloor.total.tokens).toBe(inv.total.tokens + 1300);
    expect(buildInventory(b.list, { floor: { tools: 50 } }).floor).toEqual({ known: true, tokens: 50, systemPrompt: null, tools: 50 });
  });

  it("renders deterministically and names the floor as unknown without Pi", () => {
    const text = renderInventory(inv);
    expect(text).toContain("floor        unknown (no live Pi)");
    expect(text).toContain(`#${String(lib1)} read src/lib.ts`);
    expect(renderInventory(buildInventory(b.list, { cwd: "/home/dev/project" }))).toBe(text);
  });
});

describe("estimator", () => {
  it("is summary-formatter's estimateTokens", () => {
    for (const text of ["", "a", "abcd", "abcde", "é", "日本語のテキスト", "x".repeat(10_001), "🙂🙂 mixed ascii"]) {
      expect(estimateTextTokens(text)).toBe(estimateTokens(text));
    }
  });
});

describe("adversarial input stays linear", { timeout: LINEAR_TIME_MS }, () => {
  it("1 MB single-character lines in calls, prose and output", () => {
    const b = new Blocks();
    b.user("/".repeat(1 << 20));
    b.tool("bash", { command: "a.".repeat(1 << 19) }, ".".repeat(1 << 20), "c1");
    b.tool("read", { path: "/".repeat(5000) }, "/".repeat(1 << 20), "c2");
    b.text("a/".repeat(1 << 19), "r1");
    const inv = buildInventory(b.list);
    checkTotals(inv);
    expect(inv.items).toHaveLength(b.list.length);
  });
});

describe("sessions written by Pi", () => {
  it("generated session with compactions: context blocks are Pi's context, totals add up, deterministic", async () => {
    const file = join(tempDir("inventory-"), "session.jsonl");
    await generateSession(file, { seed: 21, turns: 60, compactions: 2 });
    const session = await readSession(file);
    expect(session.compactions.length).toBeGreaterThan(0);
    const blocks = contextBlocks(session);
    const selected = new Set(contextEntries(session.lineage).map((e) => e.id));
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) expect(selected.has(block.entryId)).toBe(true);
    expect(blocks[0]?.kind).toBe("compaction");
    expect(blocks.filter((block) => block.kind === "compaction")).toHaveLength(1);
    const inv = sessionInventory(session);
    checkTotals(inv);
    expect(inv.items.map((i) => i.index)).toEqual(blocks.map((b) => b.index));
    expect(inv.toolOutput.items).toBeGreaterThan(0);
    expect(JSON.stringify(sessionInventory(await readSession(file)))).toBe(JSON.stringify(inv));
  });
});

describe("messageBlocks (the live context's messages)", () => {
  it("Pi's own context of a generated session accounts like the session file's context", async () => {
    const file = join(tempDir("inventory-msg-"), "session.jsonl");
    await generateSession(file, { seed: 22, turns: 50, compactions: 1 });
    const copy = join(tempDir("inventory-msg-"), "copy.jsonl");
    await cp(file, copy);
    const messages = SessionManager.open(copy).buildSessionContext().messages;
    const fromMessages = buildInventory(messageBlocks(messages), { cwd: "/home/dev/project" });
    const fromFile = sessionInventory(await readSession(file));
    checkTotals(fromMessages);
    const anchors = (inv: ContextInventory) => inv.items.filter((i) => i.bucket === "toolOutput").map((i) => `${i.anchor ?? ""}/${i.tool ?? ""}`);
    expect(anchors(fromMessages)).toEqual(anchors(fromFile));
    const outputs = (inv: ContextInventory) => inv.items.filter((i) => i.kind === "toolResult").map((i) => [i.tokens, i.redundantReason ?? "", i.dormant]);
    expect(outputs(fromMessages)).toEqual(outputs(fromFile));
    // Only tool-call names and `!cmd` command lines are counted on top of the file's block texts.
    expect(fromMessages.total.conversation).toBeGreaterThanOrEqual(fromFile.total.conversation);
    expect(fromMessages.total.conversation - fromFile.total.conversation).toBeLessThan(fromFile.total.conversation * 0.02);
  });

  it("images count, `!!` output is left out, ids the anchor grammar refuses are accounted but not foldable", () => {
    const blocks = messageBlocks([
      { role: "user", content: [{ type: "text", text: "look" }, { type: "image", data: "AAAA", mimeType: "image/png" }] },
      { role: "assistant", responseId: "resp_1", content: [{ type: "thinking", thinking: "hmm" }, { type: "toolCall", id: "c1", name: "read", arguments: { path: "a.ts" } }] },
      { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "x" }] },
      { role: "toolResult", toolCallId: "", toolName: "read", content: [{ type: "text", text: "y" }] },
      { role: "bashExecution", command: "ls", output: "a", exitCode: 0, excludeFromContext: true },
      { role: "bashExecution", command: "pwd", output: "/p", exitCode: 0 },
      { role: "compactionSummary", summary: "before" },
      "not a message",
    ]);
    expect(blocks.map((b) => b.kind)).toEqual(["user", "thinking", "toolCall", "toolResult", "toolResult", "bash", "compaction"]);
    expect(blocks[0]?.tokens).toBe(1 + INVENTORY_IMAGE_TOKENS);
    expect(blocks[1]?.anchor).toBe("a:resp_1:p0");
    expect(blocks[3]?.anchor).toBe("r:c1");
    expect(blocks[4]?.anchor).toBeUndefined();
    expect(blocks[5]).toMatchObject({ text: "/p", args: { command: "pwd" }, tokens: 2 });
    expect(blocks.map((b) => b.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describeShared("real session fixtures", () => {
  it("every fixture: totals add up exactly, redundant items point later, codes are unique", async () => {
    const dir = tempDir("inventory-fixtures-");
    for (const fixture of sessionFixtures()) {
      const copy = join(dir, fixture.split("/").pop() ?? "s.jsonl");
      await cp(fixture, copy);
      const inv = sessionInventory(await readSession(copy));
      checkTotals(inv);
      for (const item of inv.items) if (item.supersededBy !== undefined) expect(item.supersededBy).toBeGreaterThan(item.index);
      const codes = inv.items.flatMap((i) => (i.code === undefined ? [] : [i.code]));
      expect(new Set(codes).size).toBe(codes.length);
    }
  });
});

describe("InventoryAccumulator (blocks taken in one at a time, their text let go)", () => {
  // The hand-built case's kinds of redundancy, a call whose output comes without its tool's name, a call
  // without a name (its output names the tool), an output without a call, and a `!cmd`.
  function blocks(): InventoryBlock[] {
    const b = new Blocks();
    b.user("fix src/a.ts and src/b.ts");
    b.tool("read", { path: "src/a.ts" }, big("a"), "c1");
    b.tool("bash", { command: "make test" }, big("FAIL"), "c2");
    b.user("again");
    b.tool("read", { path: "src/a.ts" }, big("a"), "c3");
    b.tool("write", { path: "src/a.ts", content: big("new a") }, "wrote src/a.ts", "c4");
    b.tool("bash", { command: "make test" }, big("ok"), "c5");
    const list = [...b.list];
    const at = list.length;
    list.push({ index: at, kind: "toolCall", turn: 2, toolCallId: "c6", args: { path: "src/b.ts" }, text: '{"path":"src/b.ts"}' });
    list.push({ index: at + 1, kind: "toolResult", turn: 2, toolCallId: "c6", toolName: "read", anchor: "r:c6", text: big("b") });
    list.push({ index: at + 2, kind: "toolResult", turn: 2, toolCallId: "nowhere", toolName: "grep", args: { pattern: "x" }, anchor: "r:nowhere", text: big("x") });
    list.push({ index: at + 3, kind: "bash", turn: 3, args: { command: "make test" }, text: big("bash output") });
    list.push({ index: at + 4, kind: "user", turn: 3, text: "done?" });
    return list;
  }

  it("gives buildInventory's inventory, byte for byte, with items held or made as they are read", () => {
    const options = { cwd: "/w", dormantTurns: 1, folded: new Set(["r:c1"]), codes: [["r:c3", "aaaaaaaaaa"]] as [string, string][] };
    const expected = buildInventory(blocks(), options);
    for (const lazyItems of [false, true]) {
      const acc = new InventoryAccumulator(options);
      for (const block of blocks()) acc.add(block);
      const got = acc.result({ lazyItems });
      expect(JSON.stringify(got, null, 2)).toBe(JSON.stringify(expected, null, 2));
      expect(renderInventory(got, { maxToolItems: 2, maxDormantItems: 1 })).toBe(renderInventory(expected, { maxToolItems: 2, maxDormantItems: 1 }));
      expect(renderInventory(got)).toBe(renderInventory(expected));
    }
    // What the case is for: every kind of redundancy, a fold and a code kept from the seed index.
    expect(new Set(expected.items.flatMap((i) => (i.redundantReason === undefined ? [] : [i.redundantReason])))).toEqual(new Set(["reread", "rerun", "superseded"]));
    expect(expected.items.find((i) => i.anchor === "r:c3")?.code).toBe("aaaaaaaaaa");
    expect(expected.items.find((i) => i.anchor === "r:c1")?.folded).toBe(true);
    expect(expected.items.find((i) => i.anchor === "r:c6")).toMatchObject({ tool: "read", subject: "src/b.ts" });
  });

  it("lazily made items read as an array: length, indexes, iteration, array methods", () => {
    const acc = new InventoryAccumulator({ cwd: "/w" });
    for (const block of blocks()) acc.add(block);
    const lazy = acc.result({ lazyItems: true }).items;
    const held = buildInventory(blocks(), { cwd: "/w" }).items;
    expect(Array.isArray(lazy)).toBe(true);
    expect(lazy.length).toBe(held.length);
    expect([...lazy]).toEqual(held);
    expect(lazy.map((i) => i.index)).toEqual(held.map((i) => i.index));
    expect(lazy[3]).toEqual(held[3]);
    expect(lazy[held.length]).toBeUndefined();
    expect(Object.keys(lazy)).toEqual(Object.keys(held));
  });

  it("renders the largest items of a long inventory as sorting them all does", () => {
    const b = new Blocks();
    for (let k = 0; k < 500; k++) {
      if (k % 50 === 0) b.user(`turn ${String(k)}`);
      // Ties in size among many: the earlier #N first.
      b.tool("bash", { command: `echo ${String(k)}` }, "x".repeat(((k * 7919) % 37) * 100), `c${String(k)}`);
    }
    const inv = buildInventory(b.list);
    const acc = new InventoryAccumulator();
    for (const block of b.list) acc.add(block);
    const lazy = acc.result({ lazyItems: true });
    for (const maxToolItems of [0, 1, 15, 40, 200, 1000]) {
      const text = renderInventory(inv, { maxToolItems, maxDormantItems: maxToolItems });
      expect(renderInventory(lazy, { maxToolItems, maxDormantItems: maxToolItems })).toBe(text);
      const outputs = inv.items.filter((i) => i.bucket === "toolOutput");
      const sorted = [...outputs].sort((x, y) => y.tokens - x.tokens || x.index - y.index).slice(0, maxToolItems);
      for (const item of sorted) expect(text).toContain(`  #${String(item.index)} `);
    }
  });
});
