// eval's ground truth reads a failing `rm …; ls …` line as the summary does: the check's "no such file"
// confirms the removal, so it is no unresolved error the summary must keep (one rule, extractors'
// checksRemovedPaths). A failing line of another shape stays one. Sessions written by Pi's SessionManager.
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { groundTruth } from "../src/eval/ground-truth.js";

const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };

describe("eval ground truth: a removal checked by the same line", () => {
  it("is no unresolved error; a failing check of a path not removed still is", async () => {
    const dir = tempDir();
    const sm = SessionManager.create(join(dir, "project"), dir);
    let clock = Date.parse("2026-03-01T09:00:00.000Z");
    let calls = 0;
    const bash = (command: string, output: string, exitCode: number): void => {
      const id = `call_${String(++calls)}`;
      sm.appendMessage({ role: "assistant", content: [{ type: "toolCall", id, name: "bash", arguments: { command } }], api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "toolUse", timestamp: (clock += 1000) } as never);
      sm.appendMessage({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: `${output}\n\nCommand exited with code ${String(exitCode)}` }], isError: true, timestamp: (clock += 1000) } as never);
    };
    sm.appendMessage({ role: "user", content: "clean up the smoke test files", timestamp: (clock += 1000) } as never);
    // Across lines, as a script: the statements are split at the newline, not only at `;`.
    const cleanup = `rm -f chart-smoke.html img/chart-smoke-result.png\npkill -f "http.server 8765" 2>/dev/null; echo "cleaned"\nls chart-smoke.html img/chart-smoke* 2>&1 | head`;
    const other = "rm -f chart-smoke.html; ls chart-final.html";
    bash(cleanup, "cleaned\nls: cannot access 'chart-smoke.html': No such file or directory", 2);
    bash(other, "ls: cannot access 'chart-final.html': No such file or directory", 2);
    sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "Cleaned up." }], api: "anthropic-messages", provider: "anthropic", model: "m", usage, stopReason: "stop", timestamp: (clock += 1000) } as never);
    const session = await readSession(sm.getSessionFile() ?? "");
    const open = groundTruth(session, null).unresolvedErrors.map((e) => e.text);
    expect(open).toEqual([other]);
  });
});
