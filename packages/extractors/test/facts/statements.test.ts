// User statements: every user message that is not bare is kept once (any phrasing, any language),
// duplicates counted, decided by shape rather than by a phrase list.
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { createFactsAccumulator, extractFacts, isBareMessage, statementKey, textWeight } from "@context-fold/extractors";
import { BlockBuilder } from "./block-builder.js";

describe("isBareMessage", () => {
  it("takes acknowledgements, nudges and bare slash commands as bare", () => {
    for (const t of ["ok", "yes", "y", "go", "k.", "네", "ㅇㅇ", "/compact", "  ", "👍", "ok!!"]) expect(isBareMessage(t), t).toBe(true);
  });

  it("keeps short statements in any language, with typos, questions and numbers", () => {
    for (const t of [
      "pr까지",
      "리뷰루프",
      "작업 착수하자",
      "too frail for my tase tbh",
      "use pnpm",
      "port 6543",
      "isn't there a way for us to access it programatically?",
      "/model gpt-5",
      "自分でやる",
    ])
      expect(isBareMessage(t), t).toBe(false);
  });

  it("weighs CJK and Hangul above Latin letters, ignores punctuation", () => {
    expect(textWeight("ok!")).toBe(2);
    expect(textWeight("리뷰")).toBe(6);
    expect(textWeight("...!!!???")).toBe(0);
  });
});

describe("statementKey", () => {
  it("folds case, whitespace and punctuation", () => {
    expect(statementKey("  Use PNPM,   please!! ")).toBe(statementKey("use pnpm please"));
    expect(statementKey("a\n\n\tb")).toBe("a b");
  });

  it("is linear on a megabyte of punctuation and spaces", { timeout: LINEAR_TIME_MS }, () => {
    const t0 = Date.now();
    expect(statementKey("!? ".repeat(350_000))).toBe("");
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});

describe("facts.statements", () => {
  it("keeps what the user said after the goal, verbatim, without the bare ones or the goal again", () => {
    const b = new BlockBuilder()
      .user("we're in the directoy of our bespoke coding harness, why is the user agent wrong")
      .say("Looking.")
      .user("ok")
      .user("isn't there a way for us to access it programatically?")
      .user("자막데이터가 무조건 필요해")
      .user("we're in the directoy of our bespoke coding harness")
      .user("the staging db is db-2.internal:6543");
    const f = extractFacts(b.blocks);
    expect(f.statements.map((s) => s.text)).toEqual([
      "isn't there a way for us to access it programatically?",
      "자막데이터가 무조건 필요해",
      "the staging db is db-2.internal:6543",
    ]);
    expect(f.statements.every((s) => s.count === 1)).toBe(true);
  });

  it("lists a repeated message once with its count; a longer wording absorbs a shorter one it contains", () => {
    const b = new BlockBuilder()
      .user("build the release pipeline")
      .user("Never push to main directly.")
      .user("never push to main   directly")
      .user("NEVER push to main directly!!")
      .user("keep the changelog short")
      .user("keep the changelog short, one line per PR")
      .user("merge after review");
    const f = extractFacts(b.blocks);
    expect(f.statements.map((s) => [s.text, s.count])).toEqual([
      ["Never push to main directly.", 3],
      ["keep the changelog short, one line per PR", 2],
      ["merge after review", 1],
    ]);
  });

  it("gives the same statements fed turn by turn as in one go", () => {
    const b = new BlockBuilder()
      .user("start the migration")
      .user("use the v2 schema")
      .say("ok")
      .user("use the v2 schema")
      .user("and the hosts are a1, a2");
    const acc = createFactsAccumulator();
    for (const block of b.blocks) acc.add([block]);
    expect(acc.facts().statements).toEqual(extractFacts(b.blocks).statements);
  });
});
