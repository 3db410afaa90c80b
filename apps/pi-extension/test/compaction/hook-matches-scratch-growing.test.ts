// Differential, as the session grows: the facts fed and prepared at each turn's end on the session as it
// stood (read on with `updateSession`, as the extension's ledger does), and the hook at each turn equal
// to `compactSession` from scratch. Items of the summary are kept by the facts items they were made of,
// and their lines by item, from one turn's end to the next (summary-parts' `itemOf`, `itemLine`): a file
// read then edited, its symbols grown, a statement repeated, must never be rendered as it was.
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { lineageBlocks, readSession, type Session, updateSession } from "@context-fold/ledger-reader";
import { CodeAssigner } from "@context-fold/seed-index-format";
import { compactSession } from "@context-fold/summary-formatter";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";
import { CompactionFacts } from "../../src/compaction/compaction-facts.js";
import { computeHookCompaction } from "../../src/compaction/compute-compaction.js";

const SUMMARY_BUDGET = 4000;
const DIGEST_BUDGET = 1500;
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

describe("the hook's compaction equals compactSession from scratch at every turn of a growing session", () => {
  test("files read then edited, symbols added, statements repeated, turns added", async () => {
    const dir = tempDir("hook-growing-");
    const sm = SessionManager.create(join(dir, "project"), dir);
    let clock = Date.parse("2026-03-01T09:00:00.000Z");
    const user = (text: string): void => void sm.appendMessage({ role: "user", content: text, timestamp: (clock += 1000) } as never);
    const assistant = (content: unknown[]): void =>
      void sm.appendMessage({ role: "assistant", content, api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "toolUse", timestamp: (clock += 1000) } as never);
    const result = (id: string, toolName: string, text: string, isError = false): void =>
      void sm.appendMessage({ role: "toolResult", toolCallId: id, toolName, content: [{ type: "text", text }], isError, timestamp: (clock += 1000) } as never);
    const codes = new CodeAssigner();
    let session: Session | undefined;
    let facts: CompactionFacts | undefined;
    let compared = 0;
    user("Build the CSV importer for the billing service: every column kept, rejected rows logged to rejects.log.");
    for (let k = 1; k <= 14; k++) {
      const file = `src/importer/part-${String(k % 4)}.ts`;
      // Read (a file met again gets a later #N and, below, an edit: its fact changes, not its path).
      assistant([{ type: "toolCall", id: `r${String(k)}`, name: "read", arguments: { path: file } }]);
      result(`r${String(k)}`, "read", `export function part${String(k)}(rows: Row[]): number { return rows.length; }\nexport interface Row${String(k)} { id: string }`);
      if (k % 3 === 0) {
        assistant([{ type: "toolCall", id: `e${String(k)}`, name: "edit", arguments: { path: file, oldText: "rows.length", newText: `rows.length + ${String(k)}` } }]);
        result(`e${String(k)}`, "edit", `Successfully replaced text in ${file}.`);
      }
      assistant([{ type: "toolCall", id: `b${String(k)}`, name: "bash", arguments: { command: `pnpm test -- part-${String(k % 4)}` } }]);
      result(`b${String(k)}`, "bash", k % 4 === 1 ? `FAIL test/part-${String(k % 4)}.test.ts\nTests 1 failed\n\nCommand exited with code 1` : "Tests 3 passed", k % 4 === 1);
      assistant([{ type: "text", text: `Batch ${String(k)} streams.` }]);
      // A statement said again (its count grows), and a new one.
      user(k % 2 === 0 ? "Always keep the rejects log append-only." : `Now make batch ${String(k)} report the byte offset of a bad quote in row ${String(k * 7)}.`);
      session = session === undefined ? await readSession(sm.getSessionFile() ?? "") : await updateSession(session);
      facts ??= new CompactionFacts(session.header.cwd, codes);
      // A turn's end: fed up to the last user message, then prepared.
      const users = lineageBlocks(session).filter((block) => block.role === "user");
      facts.feed(session, users[users.length - 1]?.entryPosition);
      facts.prepare(session, SUMMARY_BUDGET);
      let hook;
      try {
        hook = computeHookCompaction({ session, facts, sessionId: session.header.id, seq: 7, codes, summaryBudget: SUMMARY_BUDGET, digestBudget: DIGEST_BUDGET });
      } catch (error) {
        if ((error as { code?: string }).code === "NOTHING_TO_COMPACT") continue;
        throw error;
      }
      const scratch = compactSession(session, { budget: SUMMARY_BUDGET, digestBudget: DIGEST_BUDGET, now: hook.artifacts.at });
      expect(hook.result.summary).toBe(scratch.summary);
      expect(hook.result.digest).toBe(scratch.digest);
      expect(hook.result).toEqual(scratch);
      compared += 1;
    }
    expect(compared).toBeGreaterThan(8);
    // The last summary names the edited files as modified and the repeated statement once.
    const last = compactSession(session as Session, { budget: SUMMARY_BUDGET, digestBudget: DIGEST_BUDGET });
    expect(last.summary).toMatch(/- Modified: src\/importer\/part-0\.ts/);
  });
});
