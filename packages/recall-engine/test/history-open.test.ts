// Descriptors the history's searches hold: a session's segment is kept open between searches of one
// process (at most `keepOpen` of them), and one that leaves that set mid-search has its descriptor closed,
// so many searches over more sessions than are kept leave no descriptor behind.
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { tempDir } from "@context-fold/test-support";
import { HistoryIndex } from "@context-fold/recall-engine";

let clock = Date.parse("2026-05-01T10:00:00.000Z");
function user(text: string): AgentMessage {
  return { role: "user", content: text, timestamp: (clock += 1000) } as unknown as AgentMessage;
}

/** The process's open descriptors (Linux and macOS list them under /dev/fd). */
function openDescriptors(): number {
  return readdirSync("/dev/fd").length;
}

describe("history segments kept open", () => {
  it("closes the segment of a session that leaves the kept set, so repeated searches hold no more descriptors", async () => {
    const dir = tempDir("history-open-sessions-");
    const root = tempDir("history-open-root-");
    for (let k = 0; k < 4; k++) {
      const sm = SessionManager.create(`/home/dev/p${String(k)}`, join(dir, `--home-dev-p${String(k)}--`));
      sm.appendMessage(user(`session ${String(k)}: the wombat checksum drifted again`));
    }
    const history = HistoryIndex.for(dir, { root, keepOpen: 1 });
    const first = await history.search("wombat checksum");
    expect(first.searched).toBe(4);
    const before = openDescriptors();
    for (let k = 0; k < 5; k++) expect((await history.search("wombat checksum")).total).toBe(first.total);
    expect(openDescriptors()).toBe(before);
  });
});
