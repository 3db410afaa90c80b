// A command line that removes paths and ends by checking they are gone (`rm -f x; ls x`) exits non-zero
// by design: "no such file" confirms the removal. Decided by the line's structure (an `rm` before the
// check, the check's operands naming or matching what it removed), on sessions written by Pi.
import { describe, expect, it } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { extractFacts } from "@context-fold/extractors";
import { checksRemovedPaths } from "../../src/facts/shell-command.js";
import { PiWriter } from "./pi-writer.js";

describe("checksRemovedPaths", () => {
  it("holds when every checked path was removed before, by name, by glob or inside a removed directory", () => {
    expect(checksRemovedPaths(`cd app && rm -f chart-smoke.html img/chart-smoke-result.png; pkill -f "http.server 8765" 2>/dev/null; echo "cleaned"; ls chart-smoke.html img/chart-smoke* 2>&1 | head`)).toBe(true);
    expect(checksRemovedPaths(`rm -f chart-repro.html chart-iso.html; ls chart-*.html 2>&1 | head -1`)).toBe(true);
    expect(checksRemovedPaths(`rm -rf dist && ls dist/index.js`)).toBe(true);
    expect(checksRemovedPaths(`rm -f x.lock; test -e x.lock`)).toBe(true);
    // A check of something not removed, a check not last, or no removal: the exit is the command's own.
    expect(checksRemovedPaths(`rm -f a.txt; ls b.txt`)).toBe(false);
    expect(checksRemovedPaths(`rm -f a.txt; ls a.txt b.txt`)).toBe(false);
    expect(checksRemovedPaths(`rm -f a.txt; ls a.txt; make`)).toBe(false);
    expect(checksRemovedPaths(`ls a.txt`)).toBe(false);
    expect(checksRemovedPaths(`echo "rm -f a"; ls a`)).toBe(false);
    expect(checksRemovedPaths(`rm -f chart-1.html; ls chart-1/x.html`)).toBe(false);
  });
});

describe("a removal checked by the same line", () => {
  it("is no open error; a failing check of something else still is", async () => {
    const w = new PiWriter(tempDir());
    const cleanup = `rm -f chart-smoke.html img/chart-smoke-result.png; pkill -f "http.server 8765" 2>/dev/null; echo "cleaned"; ls chart-smoke.html img/chart-smoke* 2>&1 | head`;
    const other = `rm -f chart-smoke.html; ls chart-final.html`;
    w.user("clean up the smoke test files")
      .bash(cleanup, "cleaned\nls: cannot access 'chart-smoke.html': No such file or directory\nls: cannot access 'img/chart-smoke*': No such file or directory", 2)
      .bash(other, "ls: cannot access 'chart-final.html': No such file or directory", 2)
      .say("Cleaned up.");
    const f = extractFacts(await w.blocks(), { cwd: w.cwd });
    const open = f.outstanding.filter((o) => !o.resolved).map((o) => o.command);
    expect(open).not.toContain(cleanup.slice(0, 119) + "…");
    expect(open).toContain(other);
  });
});
