// The brief's tail is built walking back from the window's end (failed results marking the calls met
// after them, the earlier part only counted): it must give what the whole-window rule gives — every
// call with a failed result anywhere in the window marked, every text whose head is not all whitespace
// (as `\s` counts it) making a line — whatever the order of calls and results.
import { describe, expect, it } from "vitest";
import { type BriefBlock, briefLines, briefTail } from "../src/index.js";

type Made = Partial<BriefBlock> & Pick<BriefBlock, "kind">;
const blocks = (made: readonly Made[]): BriefBlock[] =>
  made.map((b, index) => ({ index, toolName: undefined, toolCallId: undefined, args: undefined, isError: undefined, exitCode: undefined, text: "", ...b }));

const call = (id: string, path: string): Made => ({ kind: "toolCall", toolName: "read", toolCallId: id, args: { path } });
const result = (id: string, isError: boolean): Made => ({ kind: "toolResult", toolName: "read", toolCallId: id, isError, text: isError ? "ENOENT" : "ok" });

/** The rule written out over the whole window: each line as its block's #N, "!" after a call marked failed. */
function expected(window: readonly BriefBlock[]): string[] {
  const failed = new Set(window.filter((b) => b.kind === "toolResult" && b.isError === true).map((b) => b.toolCallId));
  const lines: string[] = [];
  for (const b of window) {
    if (b.kind === "user" || (b.kind === "text" && /\S/.test(b.text.slice(0, 464)))) lines.push(`#${String(b.index)}`);
    if (b.kind === "toolCall") lines.push(`#${String(b.index)}${failed.has(b.toolCallId) ? "!" : ""}`);
  }
  return lines;
}

/** A brief line as `expected` writes it. */
const shape = (line: string): string => `#${line.slice(line.lastIndexOf("(#") + 2, -1)}${line.includes(" [error] ") ? "!" : ""}`;

function checkEveryTail(window: readonly BriefBlock[]): void {
  const all = expected(window);
  expect(briefLines(window).map(shape)).toEqual(all);
  for (let n = 0; n <= all.length + 1; n++) {
    const tail = briefTail(window, n);
    expect(tail.lines.map(shape)).toEqual(n === 0 ? [] : all.slice(-n));
    expect(tail.earlier).toBe(all.length - tail.lines.length);
  }
}

describe("briefTail", () => {
  it("marks a call whose result failed, its result after it (as Pi writes them)", () => {
    checkEveryTail(blocks([{ kind: "user", text: "go" }, call("a", "x.ts"), result("a", true), call("b", "y.ts"), result("b", false), { kind: "text", text: "done" }, call("c", "z.ts"), result("c", true)]));
  });

  it("marks a call whose failed result comes before it, in the kept lines or the counted ones", () => {
    checkEveryTail(blocks([result("a", true), { kind: "user", text: "go" }, call("b", "y.ts"), result("c", true), call("a", "x.ts"), { kind: "text", text: "hm" }, call("c", "z.ts"), { kind: "user", text: "again" }]));
  });

  it("counts a text as a line only when its head holds a character that is not whitespace", () => {
    const spaces = [" \t\n", "\u00a0\u2003\u3000\ufeff", "\u2028\u2029\u202f\u205f\u1680\v\f\r"];
    const texts: Made[] = [];
    for (const s of spaces) texts.push({ kind: "text", text: s }, { kind: "text", text: `${s}x` }, { kind: "user", text: "u" });
    // A non-space past the head oneLine() reads leaves the text without a line.
    texts.push({ kind: "text", text: `${" ".repeat(2000)}late` }, { kind: "text", text: "\u200b" }, { kind: "user", text: "end" });
    checkEveryTail(blocks(texts));
  });
});
