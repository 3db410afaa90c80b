// Commits the session created, once each: a short hash and its full form are the same commit.
import type { ParsedCommit } from "./git-commits.js";
import type { CommitFact } from "./types.js";

export class CommitLedger {
  private readonly commits: CommitFact[] = [];
  private readonly seen = new Set<string>();

  add(found: readonly ParsedCommit[], turn: number, index: number): void {
    for (const c of found) {
      if ([...this.seen].some((h) => h.startsWith(c.hash) || c.hash.startsWith(h))) continue;
      this.seen.add(c.hash);
      this.commits.push({ ...c, turn, index });
    }
  }

  list(): CommitFact[] {
    return [...this.commits];
  }

  hashes(): string[] {
    return this.commits.map((c) => c.hash);
  }
}
