// Plain questions: stopwords, light stems, a tool result read with its call, the user found as a
// speaker, and the source of a fact ranked above prose restating it.
import { describe, expect, it } from "vitest";
import type { Block } from "@context-fold/ledger-reader";
import { RecallIndex, type RecallSession, stemOf } from "@context-fold/recall-engine";
import { nearestCoverage } from "../src/proximity.js";
import { fakeSession, type FakeBlock } from "./fake-session.js";

/** A fake session whose tool calls and results are paired by id (`call` on both). */
function paired(list: readonly (FakeBlock & { call?: string })[]): RecallSession {
  const session = fakeSession(list);
  const blocks = session.blocks.map((b, k) => {
    const call = list[k]?.call;
    return call === undefined ? b : ({ ...b, toolCallId: call } as Block);
  });
  return { ...session, blocks };
}

const filler: FakeBlock[] = Array.from({ length: 10 }, (_, k) => ({ kind: "text", text: `step ${String(k)} went fine, nothing to report here` }));

describe("plain questions", () => {
  it("stems inflected English words (and leaves identifiers alone)", () => {
    expect(stemOf("installed")).toBe("install");
    expect(stemOf("tickers")).toBe("ticker");
    expect(stemOf("running")).toBe("run");
    expect(stemOf("carries")).toBe("carr");
    expect(stemOf("node_modules")).toBeNull();
    expect(stemOf("v5")).toBeNull();
    expect(stemOf("pass")).toBeNull();
  });
  it("a tool result is found by the words of the call that asked for it", () => {
    const index = RecallIndex.build(
      paired([
        { kind: "user", text: "check the types" },
        ...filler,
        { kind: "toolCall", toolName: "bash", text: '{"command":"pnpm run typecheck"}', call: "c1" },
        { kind: "toolResult", toolName: "bash", text: "src/rules.ts(1,24): error TS2307: Cannot find module 'micromatch'", call: "c1" },
        { kind: "thinking", text: "The typecheck run will report which modules are missing, then I fix the missing modules." },
      ]),
    );
    const top = index.search("Which modules did `pnpm run typecheck` report as missing?").hits[0];
    expect(top?.kind).toBe("toolResult");
  });
  it("the word user finds what the user said; the source outranks prose restating it", () => {
    const index = RecallIndex.build(
      fakeSession([
        { kind: "user", text: "the dashboard shows 0 cheap stocks right now, filter looks wrong" },
        ...filler,
        { kind: "thinking", text: "The user said the dashboard shows 0 cheap stocks; the dashboard filter must be wrong, the stocks list is empty." },
        { kind: "text", text: "The dashboard shows stocks through a filter." },
      ]),
    );
    expect(index.search("How many cheap stocks did the user say the dashboard showed?").hits[0]?.kind).toBe("user");
  });
  it("an inflected question word finds the base form", () => {
    const index = RecallIndex.build(fakeSession([{ kind: "user", text: "go" }, ...filler, { kind: "toolResult", toolName: "bash", text: "npm install lightweight-charts@5.2.0 done" }]));
    expect(index.search("which version got installed?").hits[0]?.index).toBe(11);
  });
});

describe("an index grown by appends", () => {
  it("ranks as a fresh build when a result, a user message and injected recall traffic arrive after it was searched", () => {
    const list: (FakeBlock & { call?: string })[] = [
      { kind: "user", text: "check the types" },
      ...filler,
      { kind: "toolCall", toolName: "bash", text: '{"command":"pnpm run typecheck"}', call: "c1" },
      { kind: "thinking", text: "While typecheck runs: the missing modules will be listed." },
      { kind: "toolResult", toolName: "bash", text: "src/rules.ts(1,24): error TS2307: Cannot find module 'micromatch'", call: "c1" },
      { kind: "toolCall", toolName: "context_recall", text: '{"query":"typecheck missing modules"}', call: "c2" },
      { kind: "toolResult", toolName: "context_recall", text: "typecheck missing modules micromatch", call: "c2" },
      { kind: "user", text: "which modules did the user see missing after typecheck?" },
    ];
    const queries = ["Which modules did `pnpm run typecheck` report as missing?", "what did the user ask about modules", "micromatch"];
    const whole = RecallIndex.build(paired(list));
    for (const cut of [12, 13, 14, 15, 16]) {
      const grown = RecallIndex.build(paired(list.slice(0, cut)));
      for (const q of queries) grown.search(q, { scope: "all" });
      grown.update(paired(list));
      for (const q of queries) expect(grown.search(q, { scope: "all" }).hits, `cut ${String(cut)}: ${q}`).toEqual(whole.search(q, { scope: "all" }).hits);
    }
  });
});

describe("proximity of the query's words", () => {
  it("counts the distinct words one stretch of text holds", () => {
    const far = `deploy ${"x ".repeat(300)}region ${"y ".repeat(300)}timeout`;
    expect(nearestCoverage(far, ["deploy", "region", "timeout"])).toEqual({ found: 3, near: 1 });
    expect(nearestCoverage(`${"x ".repeat(300)}the deploy to that region hit a timeout`, ["deploy", "region", "timeout"])).toEqual({ found: 3, near: 3 });
    // A key matches where a word begins (a stem finds its inflections), not inside another word.
    expect(nearestCoverage("redeploy regional", ["deploy", "region"])).toEqual({ found: 1, near: 1 });
  });
  it("a long output holding the words pages apart ranks below the block holding them together", () => {
    const noise = (k: number): string => Array.from({ length: 120 }, (_, j) => `line ${String(k)}.${String(j)} ok`).join("\n");
    // Each word eight times, each time in a different stretch of a long output.
    const spread = Array.from({ length: 24 }, (_, k) => `${["deploy", "region", "timeout"][k % 3] as string} noted\n${noise(10 + k)}`).join("\n");
    const index = RecallIndex.build(
      fakeSession([
        { kind: "user", text: "go" },
        ...filler,
        { kind: "toolResult", toolName: "bash", text: spread },
        { kind: "toolResult", toolName: "bash", text: `${noise(4)}\nthe deploy to eu-west region failed with a timeout after 30s\n${noise(5).slice(0, 1000)}` },
        ...filler,
      ]),
    );
    expect(index.search("Why did the deploy to the region hit a timeout?").hits[0]?.index).toBe(12);
  });
});
