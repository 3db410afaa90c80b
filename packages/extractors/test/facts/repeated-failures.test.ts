// Open failures with the same outcome (one guard refusing every mutation, one host down for every call)
// are listed once, with how many runs gave it, instead of eating the summary's budget once per command.
import { describe, expect, it } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { extractArtifacts, extractFacts } from "@context-fold/extractors";
import { PiWriter } from "./pi-writer.js";

const GUARD = "Plan phase: mutation tools and patch execution are blocked until the spec is approved.";

describe("the same failure from several commands, on a Pi-written session", () => {
  it("is one open item (the latest, with its count and first #N); distinct failures and resolved ones stay apart", async () => {
    const w = new PiWriter(tempDir());
    w.user("copy the report into the project and commit it")
      .bash("cp /tmp/report.html ./report.html", GUARD, 1)
      .bash("git init && git add report.html", GUARD, 1)
      .tool("write", { path: "report.html", content: "<html/>" }, GUARD, true)
      .bash("pnpm test", "FAIL test/a.test.ts > renders\nTests  1 failed", 1)
      .bash("python3 -c 'import shutil; shutil.copy(\"/tmp/report.html\", \"report.html\")'", GUARD, 1)
      .say("The plan guard blocks every write; the test failure is separate.");
    const blocks = await w.blocks();
    const f = extractFacts(blocks, { cwd: w.cwd });
    const open = f.outstanding.filter((o) => !o.resolved);
    const guard = open.filter((o) => o.text.includes(GUARD));
    // bash runs (ERROR) merge; the write tool's refusal is a WARN of its own.
    expect(guard.map((o) => [o.severity, o.source])).toEqual([
      ["ERROR", "bash-exit"],
      ["WARN", "tool"],
    ]);
    const first = blocks.find((b) => b.kind === "toolResult" && b.text.includes(GUARD))?.index;
    expect(guard[0]?.text.startsWith(`×3 since #${String(first)}: python3 -c`)).toBe(true);
    expect(open.some((o) => o.source === "bash-exit" && o.text.startsWith("pnpm test"))).toBe(true);
    // The artifacts' error ledger keeps every run (it is the full record).
    expect(extractArtifacts(blocks, { cwd: w.cwd }).errorLedger.filter((e) => e.text.includes(GUARD))).toHaveLength(4);
  });
});

describeShared("a harness guard refusing many commands (youtube fragment)", () => {
  it("is listed once with its count", async () => {
    const session = await readSession(sharedFixture("real", "pinion05-act-3ae80f5__01-youtube-noheader.jsonl"), { fragment: true });
    const f = extractFacts(lineageBlocks(session));
    const guard = f.outstanding.filter((o) => !o.resolved && o.source === "bash-exit" && o.text.includes("Deep-interview phase boundary"));
    expect(guard).toHaveLength(1);
    expect(guard[0]?.text).toMatch(/^×\d+ since #\d+: /);
  });
});
