// readSession's onBytes: called as the file is taken in, never backwards, ending at the file's size,
// and the session read with it is the same as without it.
import { statSync } from "node:fs";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";
import { readSession } from "@context-fold/ledger-reader";
import { describe, expect, it } from "vitest";
import { assistant, user } from "./pi-messages.js";

describe("readSession onBytes", () => {
  it("reports bytes read up to the file size, and reads the same session", async () => {
    const sm = SessionManager.create(tempDir("ledger-progress-"), tempDir("ledger-progress-sessions-"));
    // ~9.6 MB: more than two of the reader's 4 MiB chunks.
    for (let i = 0; i < 120; i++) {
      sm.appendMessage(user(`question ${String(i)} ${"x".repeat(80_000)}`));
      sm.appendMessage(assistant([{ type: "text", text: `answer ${String(i)}` }]));
    }
    const file = sm.getSessionFile() ?? "";
    const seen: [number, number][] = [];
    const session = await readSession(file, { onBytes: (read, total) => seen.push([read, total]) });
    const size = statSync(file).size;
    expect(seen.length).toBeGreaterThan(1);
    for (let i = 1; i < seen.length; i++) expect(seen[i]?.[0]).toBeGreaterThanOrEqual(seen[i - 1]?.[0] ?? 0);
    expect(seen.every(([, total]) => total === size)).toBe(true);
    expect(seen[seen.length - 1]?.[0]).toBe(size);
    const plain = await readSession(file);
    expect(session.entries.length).toBe(plain.entries.length);
    expect(session.blocks.map((b) => b.sha256)).toEqual(plain.blocks.map((b) => b.sha256));
  });
});
