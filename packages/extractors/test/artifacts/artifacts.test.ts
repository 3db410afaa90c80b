// Durable artifacts: verbatim prompts and corrections, error ledger, working commands, hex constants, files.
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { ARTIFACT_PRIORITY, extractArtifacts, hexLiterals, hexTokens, isCommitHash } from "@context-fold/extractors";
import { BlockBuilder } from "../facts/block-builder.js";

describe("priority", () => {
  it("is initial_prompts → corrections → error_ledger → working_commands → hex_constants → files", () => {
    expect(ARTIFACT_PRIORITY).toEqual(["initialPrompts", "corrections", "errorLedger", "workingCommands", "hexConstants", "files"]);
  });
});

describe("extractArtifacts", () => {
  const founding = "Build a cursor for the ledger reader.\n\nRequirements:\n  - survive torn lines\n  - keep 0xC0FFEE as the magic";
  const b = new BlockBuilder()
    .user("/model")
    .user(founding)
    .bash("pnpm test", "FAIL  test/cursor.test.ts > resumes\nAssertionError: expected 1 to be 2", 1)
    .user("No, actually the limit should be 256, not 512.")
    .user("Thanks. Now also handle empty batches.")
    .edit("src/cursor.ts")
    .bash("pnpm test", " ✓ test/cursor.test.ts > resumes", 0)
    .bash('git commit -am "Add cursor"', "[main 3f2a9c1] Add cursor\n 1 file changed")
    .user("The digest 3f2a9c1 is the commit; the colour is #b5bd68 and the seed ab12cd34ef.")
    .write("src/batch.ts", "export function batch() {}\n");
  const a = extractArtifacts(b.blocks, { cwd: "/home/dev/project" });

  it("keeps the initial prompts (a leading slash command and the founding request) verbatim", () => {
    expect(a.initialPrompts.map((p) => p.text)).toEqual(["/model", founding]);
    expect(a.initialPrompts.map((p) => p.index)).toEqual([0, 1]);
  });

  it("keeps corrections verbatim and nothing else", () => {
    expect(a.corrections.map((c) => [c.text, c.turn])).toEqual([["No, actually the limit should be 256, not 512.", 3]]);
  });

  it("error ledger carries resolution; working commands pair the failure with the success", () => {
    expect(a.errorLedger.map((e) => [e.source, e.resolved])).toEqual([
      ["tests", true],
      ["bash-exit", true],
    ]);
    expect(a.workingCommands).toEqual([{ command: "pnpm test", failedIndex: 3, succeededIndex: 9 }]);
  });

  it("hex constants exclude commit hashes", () => {
    expect(a.hexConstants.map((h) => h.value)).toEqual(["0xC0FFEE", "#b5bd68", "ab12cd34ef"]);
  });

  it("files are the modified and created paths", () => {
    expect(a.files).toEqual(["src/cursor.ts", "src/batch.ts"]);
  });
});

describe("hexTokens / isCommitHash", () => {
  it("finds 0x, colours and mixed bare hex; skips words and plain numbers", () => {
    expect(hexTokens("0xDEADBEEF #fff #b5bd68 #12345 cc6666 added facade 123456 deadbeef a1b2c3d4")).toEqual([
      "0xDEADBEEF",
      "#fff",
      "#b5bd68",
      "cc6666",
      "a1b2c3d4",
    ]);
    expect(hexTokens("0xabc 0XABC")).toEqual(["0xabc"]);
  });
  it("hexLiterals: only long 0x literals (tool output)", () => {
    expect(hexLiterals("const MAGIC = 0x2da970022002a73d; mask 0xff; id 3f2a9c1d4e; 0xDEADBEEF 0x2DA970022002A73D")).toEqual([
      "0x2da970022002a73d",
      "0xDEADBEEF",
    ]);
    expect(hexLiterals("0".repeat(1_000_000))).toEqual([]);
    expect(hexLiterals("0x".repeat(500_000))).toEqual([]);
  });
  it("prefix either way counts as the commit", () => {
    expect(isCommitHash("3f2a9c1d", ["3f2a9c1"])).toBe(true);
    expect(isCommitHash("3f2a9c1", ["3f2a9c1d4e5f"])).toBe(true);
    expect(isCommitHash("3f2a9c", ["3f2a9c1"])).toBe(false);
    expect(isCommitHash("ab12cd34", ["3f2a9c1"])).toBe(false);
  });
  it("adversarial: 1 MB of hex digits, of '#', of 'x'", { timeout: LINEAR_TIME_MS }, () => {
    expect(hexTokens("a".repeat(1_000_000))).toEqual([]);
    expect(hexTokens("#".repeat(1_000_000))).toEqual([]);
    expect(hexTokens("0x".repeat(500_000))).toEqual([]);
    expect(hexTokens("1a".repeat(500_000))).toEqual([]);
  });
});
