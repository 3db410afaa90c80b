// What is not history, on a session written by Pi's own SessionManager: recall results (context_recall
// and pi-vcc's vcc_recall), `/recall` output, the compaction digest and memory blocks are not found by
// search (words or regex), keep their `#N` and stay expandable.
import { readSession } from "@context-fold/ledger-reader";
import { describe, expect, it } from "vitest";
import { DIGEST_MESSAGE_TYPE, ledgerVerifier, MEMORY_MESSAGE_TYPE, openRecall, openRecallSnapshot, RECALL_MESSAGE_TYPE, RecallIndex } from "../src/index.js";
import { assistant, toolResult, user, writtenByPi } from "./support/pi-session.js";

function zebrafishSession(): string {
  return writtenByPi((sm) => {
    sm.appendMessage(user("the zebrafish fixture fails on CI, look at tests/zebrafish.test.ts"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_read", name: "read", arguments: { path: "tests/zebrafish.test.ts" } }]));
    sm.appendMessage(toolResult("call_read", "read", "describe('zebrafish', () => { it('swims') })"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_recall", name: "context_recall", arguments: { query: "zebrafish" } }]));
    sm.appendMessage(toolResult("call_recall", "context_recall", 'Found 2 matches for "zebrafish" across 1 segment\n> #0 [user] the zebrafish fixture fails'));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_vcc", name: "vcc_recall", arguments: { query: "zebrafish" } }]));
    sm.appendMessage(toolResult("call_vcc", "vcc_recall", "#0 user: the zebrafish fixture fails on CI"));
    sm.appendCustomMessageEntry(RECALL_MESSAGE_TYPE, "Recall results the user asked for (/recall zebrafish):\n> #0 [user] the zebrafish fixture", true);
    sm.appendCustomMessageEntry(DIGEST_MESSAGE_TYPE, "Digest: the user asked to fix the zebrafish fixture", false);
    sm.appendCustomMessageEntry(MEMORY_MESSAGE_TYPE, "<memories>zebrafish tests are flaky on CI</memories>", false);
    // Another extension's message is history like any other.
    sm.appendCustomMessageEntry("other-extension-note", "note: zebrafish owner is the platform team", true);
    sm.appendMessage(assistant([{ type: "text", text: "The zebrafish test needs a longer timeout." }]));
  });
}

describe("what is not history", () => {
  it("recall traffic and the extension's injected messages are not found, keep their #N and expand", async () => {
    const file = zebrafishSession();
    const session = await readSession(file);
    const index = RecallIndex.build(session);
    const labels = session.blocks.map((b) => `${b.kind}:${b.toolName ?? ""}`);
    const injected = session.blocks.filter((b) => b.toolName === "context_recall" || b.toolName === "vcc_recall" || b.kind === "custom").map((b) => b.index);
    expect(injected.length).toBe(8);
    const notes = session.blocks.filter((b) => b.text.startsWith("note:")).map((b) => b.index);
    const isInjected = (n: number): boolean => injected.includes(n) && !notes.includes(n);
    const found = index.search("zebrafish", { scope: "all", pageSize: 50 }).hits.map((h) => h.index);
    expect(found).toContain(0);
    expect(found.filter(isInjected)).toEqual([]);
    // Another extension's message is history: found by its words.
    expect(index.search("zebrafish owner platform", { scope: "all" }).hits[0]?.index).toBe(notes[0]);
    // Words only the injected messages hold find nothing; a regex neither.
    expect(index.search("flaky", { scope: "all" }).total).toBe(0);
    expect(index.search("/Recall results|memories|Digest|Found 2 matches/", { scope: "all" }).total).toBe(0);
    const regex = index.search("/zebrafish/", { scope: "all", pageSize: 50 }).hits.map((h) => h.index);
    expect(regex.filter(isInjected)).toEqual([]);
    expect(regex.length).toBe(session.blocks.filter((b) => b.text.includes("zebrafish")).length - injected.length + notes.length);
    // Numbering is the ledger's: the injected blocks are still #N and expand verified.
    const expanded = index.expand(injected, ledgerVerifier(session));
    expect(expanded.map((e) => e.index)).toEqual(injected);
    expect(expanded.every((e) => e.text.length > 0)).toBe(true);
    expect(labels.length).toBe(session.blocks.length);
  });

  it("a search answered from the block table skips the same blocks as the full read (the table keeps what is not history)", async () => {
    const file = zebrafishSession();
    const full = await openRecall(file);
    expect(full.saveSnapshot()).toBe(true);
    const fast = openRecallSnapshot(file);
    expect(fast).not.toBeNull();
    // The table's own columns, not the (entry-less) table blocks, say which custom messages are injected.
    const skip = full.session.blocks.map((b) => (b.kind === "custom" && !b.text.startsWith("note:")) || b.toolName === "context_recall" || b.toolName === "vcc_recall");
    expect([...(fast?.session.notHistoryMask?.() ?? [])]).toEqual(skip.map((x) => (x ? 1 : 0)));
    for (const query of ["zebrafish", "zebrafish owner platform", "flaky"]) {
      expect(JSON.stringify(fast?.search(query, { scope: "all", pageSize: 50 }))).toBe(JSON.stringify(full.search(query, { scope: "all", pageSize: 50 })));
    }
  });
});
