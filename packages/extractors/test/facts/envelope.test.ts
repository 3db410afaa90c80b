// A harness may wrap what the user typed in leading markup (a timestamp element, an environment block):
// the message is kept whole, but its turn line, the focus and what it opens with are read past them.
import { describe, expect, it } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { extractArtifacts, extractFacts } from "@context-fold/extractors";
import { withoutEnvelope } from "../../src/facts/user-text.js";
import { PiWriter } from "./pi-writer.js";

const stamp = (t: string): string => `<user_message_time>Monday, April 6, 2026 at ${t} PM GMT+8</user_message_time>\n\n`;

describe("withoutEnvelope", () => {
  it("drops whole leading elements closed by their own end tag, only when text follows", () => {
    expect(withoutEnvelope(`${stamp("12:00")}Review the parser.`)).toBe("Review the parser.");
    expect(withoutEnvelope(`<env cwd="/x">\nnode 22\n</env>\n<t>now</t> Fix it.`)).toBe("Fix it.");
    expect(withoutEnvelope("<only>one element</only>")).toBe("<only>one element</only>");
    expect(withoutEnvelope("<b>unclosed and more")).toBe("<b>unclosed and more");
    expect(withoutEnvelope("a <b>tag</b> inside")).toBe("a <b>tag</b> inside");
  });
});

describe("user messages wrapped by a harness, on a Pi-written session", () => {
  it("turn lines, focus, scope changes and corrections read what the user typed; the goal stays verbatim", async () => {
    const w = new PiWriter(tempDir());
    const founding = `${stamp("12:00")}Review the parser behavior in src/parser.ts.`;
    w.user(founding)
      .tool("read", { path: "src/parser.ts" }, "export function parseInput(raw: string): string {\n\treturn raw.trim();\n}")
      .say("The parser trims whitespace before processing.")
      .user(`${stamp("12:01")}Now compare it with the CLI input handling.`)
      .say("The CLI path trims too.")
      .user(`${stamp("12:02")}No, actually compare the error messages, not the trimming.`)
      .say("Comparing the error messages.");
    const blocks = await w.blocks();
    const f = extractFacts(blocks, { cwd: w.cwd });
    expect(f.goal?.text).toBe(founding);
    expect(f.turns.map((t) => t.oneLine)).toEqual([
      "Review the parser behavior in src/parser.ts. → read parser.ts",
      "Now compare it with the CLI input handling.",
      "No, actually compare the error messages, not the trimming.",
    ]);
    expect(f.status.focus).toBe("No, actually compare the error messages, not the trimming.");
    expect(f.scopeChanges.map((s) => s.index)).toEqual([blocks.find((b) => b.text.includes("Now compare"))?.index]);
    const a = extractArtifacts(blocks, { cwd: w.cwd });
    expect(a.corrections.map((c) => c.text)).toEqual([`${stamp("12:02")}No, actually compare the error messages, not the trimming.`]);
  });
});

describeShared("earendil-pi prompt-cache replay session", () => {
  it("its turns and focus are the user's words, not the timestamp element", async () => {
    const session = await readSession(sharedFixture("sessions", "earendil-pi__prompt-cache-replay-session.jsonl"));
    const f = extractFacts(lineageBlocks(session), { cwd: session.header.cwd ?? "" });
    expect(f.turns.map((t) => t.oneLine)).toEqual(["Review the parser behavior. → read parser.ts", "Now compare it with the CLI input handling."]);
    expect(f.status.focus).toBe("Now compare it with the CLI input handling.");
    expect(f.scopeChanges).toHaveLength(1);
  });
});
