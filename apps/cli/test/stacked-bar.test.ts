// `inventory` draws the context as a stacked bar: widths proportional to tokens, always the full width.
import { join } from "node:path";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { partWidths, stackedBar } from "../src/stacked-bar.js";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

describe("stacked bar", () => {
  it("widths are proportional, sum to the width, and a non-zero part is never invisible", () => {
    expect(partWidths([50, 25, 25], 60)).toEqual([30, 15, 15]);
    expect(partWidths([1, 1000, 0], 60)).toEqual([1, 59, 0]);
    expect(partWidths([1, 1, 1], 10).reduce((a, b) => a + b, 0)).toBe(10);
    expect(partWidths([0, 0], 10)).toEqual([0, 0]);
    expect(stackedBar([{ label: "a", value: 3 }, { label: "b", value: 1 }], 8).split("\n")[0]).toBe("[██████▓▓]");
  });

  describe("in `inventory`", () => {
    const dir = tempDir("cli-inventory-bar-");
    const file = join(dir, "s.jsonl");
    beforeAll(async () => {
      await generateSession(file, { seed: 12, turns: 40 });
    });

    it("the text output opens with the bar, its segments in proportion to the accounting", async () => {
      const json = await cli(["inventory", file, "--json", "--system-prompt-tokens", "3000", "--tools-tokens", "1000"]);
      const inv = JSON.parse(json.stdout) as { floor: { tokens: number }; toolOutput: { tokens: number }; dormant: { tokens: number }; live: { tokens: number } };
      const text = await cli(["inventory", file, "--system-prompt-tokens", "3000", "--tools-tokens", "1000"]);
      expect(text.exit).toBe(0);
      const [bar, ...legend] = text.stdout.split("\n");
      const expected = partWidths([inv.floor.tokens, inv.toolOutput.tokens, inv.dormant.tokens, inv.live.tokens], 60);
      expect(bar).toBe(`[${"█".repeat(expected[0] ?? 0)}${"▓".repeat(expected[1] ?? 0)}${"▒".repeat(expected[2] ?? 0)}${"░".repeat(expected[3] ?? 0)}]`);
      expect(legend[0]).toContain("floor");
      expect(legend[0]).toContain(String(inv.floor.tokens));
      expect(legend[1]).toContain("tool output");
    });
  });
});
