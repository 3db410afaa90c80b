import { describe, expect, it } from "vitest";
import { CodeAssigner, codeFor, sha256Hex, validateRecord } from "@context-fold/seed-index-format";
import { buildFoldRecord, createSeedAccumulator, extractRecordFields, IDENTIFIER_CAP } from "@context-fold/extractors";
import { BlockList } from "./hand-blocks.js";

const CWD = "/home/dev/repo";

function sample(): BlockList {
  const s = new BlockList();
  s.user("\n  fix the failing ladder test\nplease, and keep RECALL_SLICE_TOKEN_CAP");
  s.text("I'll look at src/ladder.ts first");
  s.tool("read", { path: "src/ladder.ts" }, 'import { x } from "./other.js";\nexport const stepAdvance = 1;');
  s.tool("bash", { command: "npx vitest run tests/ladder.test.ts" }, "FAIL tests/ladder.test.ts > step advance\nError: expected 0x811c9dc5\n\nCommand exited with code 1", { isError: true });
  s.tool("edit", { path: "/home/dev/repo/src/ladder.ts", oldText: "a", newText: "computeFoldLadder()" }, "Successfully replaced text in src/ladder.ts.");
  s.tool("write", { path: "/tmp/notes.md", content: "x" }, "Successfully wrote 1 bytes to /tmp/notes.md");
  s.bang("git diff --stat", "fatal: bad revision\n", 128);
  s.tool("bash", { command: "npx vitest run tests/ladder.test.ts" }, "ok");
  s.user("thanks");
  return s;
}

describe("seed fields", () => {
  it("extracts files, commands, errors, identifiers and user messages", () => {
    const fields = extractRecordFields(sample().blocks, { cwd: CWD });
    expect(fields.files).toEqual(["src/ladder.ts", "tests/ladder.test.ts", "/tmp/notes.md"]);
    expect(fields.commands).toEqual(["npx vitest run tests/ladder.test.ts", "git diff --stat"]);
    expect(fields.errors).toEqual([
      "FAIL tests/ladder.test.ts > step advance",
      "Error: expected 0x811c9dc5",
      "Command exited with code 1",
      "fatal: bad revision",
    ]);
    expect(fields.identifiers).toEqual(expect.arrayContaining(["RECALL_SLICE_TOKEN_CAP", "0x811c9dc5", "stepAdvance", "computeFoldLadder"]));
    expect(fields.userMessages).toEqual([
      { turn: 1, firstLine: "  fix the failing ladder test" },
      { turn: 2, firstLine: "thanks" },
    ]);
  });

  it("leaves out paths an output says do not exist, and paths of a file printed by a shell command", () => {
    const s = new BlockList();
    s.user("port the selector");
    s.tool("bash", { command: 'grep -A 3 "applyBackground" packages/tui/src/wrap-ansi.ts' }, "grep: packages/tui/src/wrap-ansi.ts: No such file or directory\n\nCommand exited with code 2", { isError: true });
    s.tool("bash", { command: "cp $(npm root -g)/pkg/dist/theme/dark.json ~/.pi/themes/" }, "cp: /opt/homebrew/lib/node_modules/pkg/dist/theme/dark.json: No such file or directory", { isError: true });
    // Reported missing first, then written by a file tool: a file of the session after all.
    s.tool("bash", { command: "head -5 notes/plan.md" }, "head: notes/plan.md: No such file or directory", { isError: true });
    s.tool("write", { path: "notes/plan.md", content: "x" }, "Successfully wrote 1 bytes to notes/plan.md");
    // A file printed by sed or grep: the paths inside are the file's content, not files of the session.
    s.tool("bash", { command: "sed -n '765,800p' README.md" }, "Create a tool with a README: `~/agent-tools/screenshot/README.md`:");
    s.tool("bash", { command: 'grep -A 30 "### Custom Tools" README.md' }, "Usage: read ~/agent-tools/other/README.md first");
    // A search over many files names files: kept.
    s.tool("bash", { command: 'grep -rn "selector" src/' }, "src/tui/selector.ts:12: export class Selector");
    const fields = extractRecordFields(s.blocks, { cwd: CWD });
    expect(fields.files).toEqual(["notes/plan.md", "src/tui/selector.ts"]);
  });

  it("keeps dashed ids whole and leaves query-language keywords out of identifiers", () => {
    const s = new BlockList();
    s.user("check PROJ-4821 and the job-4b1e9d07 run; NEEDLE-3-5f49cd too");
    s.tool("bash", { command: "psql -c 'SELECT id FROM users WHERE id > 10 ORDER BY id LIMIT 5'" }, "SELECT id FROM users WHERE id > 10 ORDER BY id LIMIT 5\nERROR: relation USERS_OLD does not exist\nENOENT on 2026-07-13, utf-8 decode, see ABCDEF-GHIJK\n", { isError: true });
    const ids = extractRecordFields(s.blocks, { cwd: CWD }).identifiers;
    expect(ids).toEqual(expect.arrayContaining(["PROJ-4821", "job-4b1e9d07", "NEEDLE-3-5f49cd", "USERS_OLD", "ENOENT"]));
    for (const keyword of ["SELECT", "WHERE", "LIMIT", "ORDER", "FROM"]) expect(ids).not.toContain(keyword);
    // Not dashed ids: a date, a short encoding name, words without a digit.
    for (const not of ["2026-07-13", "utf-8", "ABCDEF-GHIJK"]) expect(ids).not.toContain(not);
  });

  it("puts lines from isError results first", () => {
    const s = new BlockList();
    s.user("go");
    s.tool("bash", { command: "a" }, "warning then failed here");
    s.tool("bash", { command: "b" }, "Error: boom", { isError: true });
    expect(extractRecordFields(s.blocks).errors).toEqual(["Error: boom", "warning then failed here"]);
  });

  it("caps identifiers at 64, favouring large outputs, rarer and longer tokens", () => {
    const s = new BlockList();
    s.user("go");
    const common = Array.from({ length: 100 }, (_, i) => `commonSymbol${String(i)}`);
    for (let k = 0; k < 3; k++) s.text(common.join(" "));
    const filler = "plain words only here\n".repeat(400);
    s.tool("bash", { command: "cat big.log" }, `${filler}needle NEEDLE_TOKEN_XYZ and deadbeef42\n${filler}`);
    const ids = extractRecordFields(s.blocks).identifiers;
    expect(ids).toHaveLength(IDENTIFIER_CAP);
    expect(ids).toContain("NEEDLE_TOKEN_XYZ");
    expect(ids).toContain("deadbeef42");
  });

  it("favours recent blocks for compact records", () => {
    const s = new BlockList();
    s.user("go");
    for (let i = 0; i < 200; i++) s.text(`tokenNumber${String(1000 + i)}`);
    const early = extractRecordFields(s.blocks).identifiers;
    const recent = extractRecordFields(s.blocks, { favourRecent: true }).identifiers;
    expect(early[0]).toBe("tokenNumber1000");
    expect(recent).toContain("tokenNumber1199");
    expect(recent).not.toContain("tokenNumber1000");
  });

  it("is deterministic and incremental: per-turn adds equal one pass", () => {
    const blocks = sample().blocks;
    const once = createSeedAccumulator({ cwd: CWD }).add(blocks).record({ sessionId: "s1", seq: 0, trigger: "threshold" });
    const acc = createSeedAccumulator({ cwd: CWD });
    for (const block of blocks) acc.add([block]);
    const stepwise = acc.record({ sessionId: "s1", seq: 0, trigger: "threshold" });
    expect(JSON.stringify(stepwise)).toBe(JSON.stringify(once));
    expect(JSON.stringify(buildFoldRecord({ sessionId: "s1", seq: 0, trigger: "threshold", blocks, cwd: CWD }))).toBe(JSON.stringify(once));
    // Re-sending blocks already added changes nothing.
    acc.add(blocks.slice(2));
    expect(acc.size).toBe(blocks.length);
    expect(JSON.stringify(acc.record({ sessionId: "s1", seq: 0, trigger: "threshold" }))).toBe(JSON.stringify(once));
  });
});

describe("fold record", () => {
  it("validates, defaults `at` to the last block's timestamp and carries spans", () => {
    const s = sample();
    const last = s.blocks[s.blocks.length - 1];
    const record = buildFoldRecord({ sessionId: "s1", seq: 3, trigger: "threshold", blocks: s.blocks, cwd: CWD });
    expect(validateRecord(record)).toEqual({ ok: true, kind: "record" });
    expect(record.at).toBe(last?.timestamp);
    const anchored = s.blocks.filter((b) => b.anchor !== undefined);
    expect(record.spans.map((sp) => sp.blockId)).toEqual(anchored.map((b) => b.anchor));
    const bashSpan = record.spans.find((sp) => sp.tool === "bash");
    const bashBlock = anchored.find((b) => b.toolName === "bash");
    expect(bashSpan?.sha256).toBe(sha256Hex(bashBlock?.text ?? ""));
    expect(bashSpan?.code).toBe(codeFor(bashSpan?.blockId ?? ""));
    expect(bashSpan?.log).toEqual({ bytes: Buffer.byteLength(bashBlock?.text ?? ""), lines: 4 });
    expect(record.spans.find((sp) => sp.blockId.startsWith("a:"))?.tool).toBeUndefined();
  });

  it("keeps fullOutputPath, except on edited spans", () => {
    const s = new BlockList();
    s.user("go");
    const id = s.call("bash", { command: "seq 1 100000" });
    s.result(id, "bash", "1\n2", { fullOutputPath: "/tmp/pi-out/1.txt" });
    const id2 = s.call("bash", { command: "seq 1 5" });
    s.result(id2, "bash", "[replaced]", { fullOutputPath: "/tmp/pi-out/2.txt", anchor: `r:${id2}:edit:0123abcd` });
    const record = buildFoldRecord({ sessionId: "s", seq: 0, trigger: "cap", blocks: s.blocks, at: "2026-01-01T00:00:00Z" });
    expect(record.spans[0]?.fullOutputPath).toBe("/tmp/pi-out/1.txt");
    expect(record.spans[1]?.blockId).toBe(`r:${id2}:edit:0123abcd`);
    expect(record.spans[1]?.fullOutputPath).toBeUndefined();
    expect(validateRecord(record).ok).toBe(true);
  });

  it("takes codes from the session's assigner (stable across records)", () => {
    const s = sample();
    const anchor = s.blocks.find((b) => b.kind === "toolResult")?.anchor ?? "";
    const codes = new CodeAssigner([[anchor, "existing01"]]);
    const record = buildFoldRecord({ sessionId: "s", seq: 0, trigger: "threshold", blocks: s.blocks, codes });
    expect(record.spans.find((sp) => sp.blockId === anchor)?.code).toBe("existing01");
  });

  it("lists only the spans added since a spanCount mark, equal to the tail of the full list", () => {
    const blocks = sample().blocks;
    const half = Math.floor(blocks.length / 2);
    const acc = createSeedAccumulator({ cwd: CWD }).add(blocks.slice(0, half));
    const mark = acc.spanCount;
    expect(mark).toBe(acc.spans(new CodeAssigner()).length);
    acc.add(blocks.slice(half));
    const all = acc.spans(new CodeAssigner());
    const since = acc.spans(new CodeAssigner(), undefined, mark);
    expect(since.length).toBeGreaterThan(0);
    expect(since.length).toBeLessThan(all.length);
    expect(JSON.stringify(since)).toBe(JSON.stringify(all.slice(mark)));
  });

  it("refuses to invent a time", () => {
    const s = new BlockList();
    const b = s.user("hi");
    expect(() => buildFoldRecord({ sessionId: "s", seq: 0, trigger: "cap", blocks: [{ ...b, timestamp: undefined }] })).toThrow(/at/);
  });
});
