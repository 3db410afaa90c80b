// Turn lines and the focus from the first substantive sentence; next steps wherever a sentence opens.
import { describe, expect, it } from "vitest";
import { extractFacts, firstSentence, nextSteps } from "@context-fold/extractors";
import { BlockBuilder } from "./block-builder.js";

describe("firstSentence", () => {
  it("skips headings, quotes, fences, rules and labels, and stops at the sentence end", () => {
    expect(firstSentence("## Research notes\n\nThe cache is cold on start. Then it warms.", 100)).toBe("The cache is cold on start.");
    expect(firstSentence("> This header is passed to the OpenAI SDK\n\nisn't there a way for us to access it programatically?", 100)).toBe(
      "isn't there a way for us to access it programatically?",
    );
    expect(firstSentence("```ts\nconst a = 1;\n```\nwhy does this fail", 100)).toBe("why does this fail");
    expect(firstSentence("Context:\n---\n| a | b |\nuse v2.1.0 of the API", 100)).toBe("use v2.1.0 of the API");
    expect(firstSentence("# Only a heading", 100)).toBe("# Only a heading");
  });
});

describe("turn lines", () => {
  it("never take a heading every message of a research session opens with", () => {
    const b = new BlockBuilder()
      .user("## Task\nSurvey the retry logic in src/net.")
      .say("ok")
      .user("## Task\nNow compare it with the queue's backoff.");
    const f = extractFacts(b.blocks);
    expect(f.turns.map((t) => t.oneLine)).toEqual(["Survey the retry logic in src/net.", "Now compare it with the queue's backoff."]);
    expect(f.status.focus).toBe("Now compare it with the queue's backoff.");
  });
});

describe("nextSteps", () => {
  it("finds a next step that opens a later sentence, not only a line", () => {
    expect(nextSteps("Understood. Next I will wire the header into the provider.")).toEqual(["Next I will wire the header into the provider."]);
    expect(nextSteps("Fixed the test. I'll run the full suite now.")).toEqual(["I'll run the full suite now."]);
  });

  it("drops stray fragments and keeps plain text out", () => {
    expect(nextSteps("Then\nAll done, nothing left.")).toEqual([]);
    expect(nextSteps("The build is green.")).toEqual([]);
  });
});
