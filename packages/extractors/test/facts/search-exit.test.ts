// A command line whose last statement searches exits 1 when nothing matched: that is "no matches", not
// a failure, even when statements before it printed (echo headers, earlier greps' hits).
import { describe, expect, it } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { extractFacts } from "@context-fold/extractors";
import { endsInSearch, lastStatementStages } from "../../src/facts/shell-command.js";
import { PiWriter } from "./pi-writer.js";

describe("lastStatementStages", () => {
  it("splits at top-level separators only, respecting quotes and escapes", () => {
    expect(lastStatementStages(`cd a && echo "== x ==" && grep -nE "w|h;t" f | head -3; echo "== y ==" && grep -n 'p|q' g | head -14`)).toEqual([
      `grep -n 'p|q' g`,
      "head -14",
    ]);
    expect(lastStatementStages("grep x f; \n")).toEqual(["grep x f"]);
    expect(lastStatementStages("make || grep err log")).toEqual(["grep err log"]);
    expect(lastStatementStages(`echo a\\;b`)).toEqual([`echo a\\;b`]);
    expect(endsInSearch(`echo "== a ==" && git grep -n foo`)).toBe(true);
    expect(endsInSearch(`grep -n x f; python3 run.py`)).toBe(false);
    expect(endsInSearch(`echo "grep | x"`)).toBe(false);
  });
});

describe("exit 1 of a line that ends in a search", () => {
  it("is a no-match note, not an open error; a line ending in another program, or printing errors, still fails", async () => {
    const w = new PiWriter(tempDir());
    const headers = `cd lib && echo "=== autoSize ===" && grep -nE "autoSize|width" typings.d.ts | head -3; echo "=== priceFormat ===" && grep -nA8 "type PriceFormat =" typings.d.ts | head -14`;
    w.user("find the chart options in the typings")
      .bash(headers, "=== autoSize ===\n925:\twidth: number;\n=== priceFormat ===\n", 1)
      .bash(`grep -n TODO src/a.ts; python3 scripts/check.py`, "12: // TODO tidy\n", 1)
      .bash(`npm run build && grep -c ready dist/build.log`, "src/a.ts(3,1): error TS2304: Cannot find name 'x'.\n", 1)
      .say("Found width; PriceFormat is not declared there.");
    // A harness refusing to run a search line flags an error with no exit status: that is not "no match".
    const refused = `echo "---"; grep -rn innertube lib/`;
    w.tool("bash", { command: refused }, "Plan phase: mutation tools and patch execution are blocked until the spec is approved.", true);
    const f = extractFacts(await w.blocks(), { cwd: w.cwd });
    const open = f.outstanding.filter((o) => !o.resolved);
    expect(open.filter((o) => o.source === "no-matches").map((o) => o.command)).toEqual([headers.slice(0, 119) + "…"]);
    expect(open.filter((o) => o.severity === "ERROR").map((o) => o.command)).toContain(refused);
    const errors = open.filter((o) => o.severity === "ERROR").map((o) => o.command);
    expect(errors).toContain("grep -n TODO src/a.ts; python3 scripts/check.py");
    expect(errors).toContain("npm run build && grep -c ready dist/build.log");
    expect(errors).not.toContain(headers.slice(0, 119) + "…");
  });
});

describeShared("a real session's header-and-grep lines", () => {
  it("raddit: the typings lookups that matched nothing in their last grep are not open errors", async () => {
    const session = await readSession(sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl"));
    const f = extractFacts(lineageBlocks(session), session.header.cwd === undefined ? {} : { cwd: session.header.cwd });
    const errorAt = new Set(f.outstanding.filter((o) => !o.resolved && o.severity === "ERROR").map((o) => o.index));
    // #145 and #174: `echo "=== … ===" && grep … | head` lines whose output shows only headers and hits.
    for (const index of [145, 174]) expect(errorAt.has(index), `#${String(index)}`).toBe(false);
    const noMatch = new Set(f.outstanding.filter((o) => o.source === "no-matches").map((o) => o.index));
    for (const index of [145, 174]) expect(noMatch.has(index), `#${String(index)}`).toBe(true);
    // A real failure of the same session stays open: the local http.server unreachable (curl exit 7).
    expect(errorAt.has(226)).toBe(true);
  });
});
