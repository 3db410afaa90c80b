// A question asking for a failure ("what error…", "why did … fail") over a history: the block table keeps
// which blocks are failed tool outputs (a flag beside each block's kind), so ranking asks it without
// decoding the block fields, and the hits are the same as searching each session on its own.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { HistoryIndex, historyDirFor, searchSessions } from "@context-fold/recall-engine";
import { segmentBase } from "../src/history-layout.js";
import { BlockTable } from "../src/history-table.js";
import { assistant, toolResult, user, writtenByPi } from "./support/pi-session.js";

describe("history block tables and failures", () => {
  it("flag each failed tool output, and a question asking for a failure ranks as per-session search", async () => {
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("run the build and tell me what error it hits"));
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_1", name: "bash", arguments: { command: "pnpm build" } }]));
      sm.appendMessage(toolResult("c_1", "bash", "error TS2322: Type 'string' is not assignable to type 'number'.", true));
      sm.appendMessage(assistant([{ type: "text", text: "The build error is a type error in the parser; the error message names line 12." }]));
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_2", name: "bash", arguments: { command: "cat error-notes.md" } }]));
      sm.appendMessage(toolResult("c_2", "bash", "notes: the error handling of the parser, error codes listed below"));
      sm.appendMessage(user("and which error did the tests fail with?"));
    });
    const dir = dirname(file);
    const root = tempDir("history-failure-root-");
    const history = HistoryIndex.for(dir, { root });
    await history.update();
    const s = history.sessions[0];
    if (s === undefined) throw new Error("no session");
    const tab = `${segmentBase(join(historyDirFor(dir, root), "segments"), file, s.id)}.tab`;
    const table = BlockTable.read(file, readFileSync(tab), tab, true);
    const session = await readSession(file);
    let failed = 0;
    for (const b of session.blocks) {
      expect(table.failed(b.index), `#${String(b.index)}`).toBe(b.isError === true);
      if (b.isError === true) failed++;
    }
    expect(failed).toBe(1);
    for (const query of ["what error did the build hit", "which error", "error"]) {
      const each = await searchSessions(dir, query, { scope: "all", cache: false });
      const across = await history.search(query, { scope: "all" });
      expect(across.hits, query).toEqual(each.hits);
      expect(across.total, query).toBe(each.total);
    }
    // The failed output ranks above the output only talking about errors (its value boost read from the flag).
    const answer = await history.search("what error did the build hit", { scope: "all" });
    const rankOf = (index: number): number => answer.hits.findIndex((h) => h.index === index);
    const failedAt = session.blocks.findIndex((b) => b.isError === true);
    const talking = session.blocks.findIndex((b) => b.kind === "toolResult" && b.isError !== true);
    expect(rankOf(failedAt)).toBeGreaterThanOrEqual(0);
    expect(rankOf(failedAt)).toBeLessThan(rankOf(talking));
  }, 60_000);
});
