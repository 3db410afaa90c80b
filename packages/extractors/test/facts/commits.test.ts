// Commits created in the session, whatever tool reports them; hashes git merely lists are history.
import { describe, expect, it } from "vitest";
import { extractFacts, reportedCommits } from "@context-fold/extractors";
import { BlockBuilder } from "./block-builder.js";

describe("commits of the session", () => {
  it("takes git's commit line from a script that commits, and from a custom tool's own words", () => {
    const b = new BlockBuilder()
      .user("publish the session")
      .bash("python3 /tmp/git_push.py", "$ git add -A\n$ git commit -m init\n[master (root-commit) 5e21ff8] masked session\n 2 files changed, 246 insertions(+)\n")
      .tool("vcs_commit", { message: "fix chart" }, "Committed 3f2a9c1 on feat/chart: fix chart squish")
      .tool("release", { version: "1.2.0" }, "commit created: abc1234def (tagged v1.2.0)");
    const f = extractFacts(b.blocks);
    expect(f.commits.map((c) => c.hash)).toEqual(["5e21ff8", "3f2a9c1", "abc1234def"]);
    expect(f.commits[1]?.subject).toBe("on feat/chart: fix chart squish");
  });

  it("does not take hashes that git log or show list, nor hex in a tool's output without a commit", () => {
    const b = new BlockBuilder()
      .user("what changed?")
      .bash("git log --oneline -3", "9b6e517 feat: inject User-Agent\n1a2b3c4 chore: deps\n")
      .bash("git show 9b6e51761536 --stat", "commit 9b6e51761536abcd\nAuthor: x\n\n    feat\n\n src/models.ts | 3 +-\n 1 file changed")
      .tool("browser", { url: "https://x" }, "color #1a2b3c4d, build id deadbeef1")
      .tool("web_fetch", { url: "https://github.com/o/r/commit/abc1234" }, "see https://github.com/o/r/commit/abc1234 for the commit")
      // A recall tool returns what an earlier session stored: its commits are not this session's.
      .tool("recall", { query: "session cache" }, "- Commit f8403be on main: Store the session cache in SQLite")
      .tool("context_recall", { query: "commit" }, "#12 [tool] Committed 3f2a9c1 on feat/chart: fix chart squish");
    expect(extractFacts(b.blocks).commits).toEqual([]);
  });

  it("reads a long report in bounded time", () => {
    const t0 = Date.now();
    expect(reportedCommits(`commit ${"a1".repeat(500_000)}\n`.repeat(2))).toEqual([]);
    expect(Date.now() - t0).toBeLessThan(2000);
  });
});
