// The question a session ends on is judged where the session ends, not where the summarized window does:
// when the cut keeps the reply in the tail, the window's last question is not "unanswered".
import { readSession } from "@context-fold/ledger-reader";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { compactSession, parseSummary } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { piWriter } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";

/** The summary's outstanding items labelled as a question nobody answered. */
function asked(summary: string): string[] {
  return parseSummary(summary)
    .outstanding.filter((o) => o.label === "unanswered")
    .map((o) => o.text);
}

describe("a question the window ends on, with the reply in the kept tail", () => {
  it("is not listed as unanswered, whatever the tail ends on (the tail stays in context verbatim)", async () => {
    const w = piWriter(tempDir());
    w.user("Set up the API server config for the staging deploy.");
    w.assistant([{ type: "toolCall", id: "c1", name: "write", arguments: { path: "config/api.json", content: '{ "port": 8080 }' } }]);
    w.result("c1", "write", "Successfully wrote 16 bytes to config/api.json");
    w.user("Which port does the API listen on now?");
    w.assistant([{ type: "toolCall", id: "c2", name: "read", arguments: { path: "config/api.json" } }]);
    w.result("c2", "read", '{ "port": 8080 }');
    w.assistant([{ type: "text", text: "It listens on 8080, set in config/api.json." }]);
    const answered = await readSession(w.file);
    // Keep the reply (three messages): the cut falls right after the user's question.
    const r = compactSession(answered, { now: NOW, keepTail: 3 });
    expect(r.stats.range?.to).toBe(3);
    expect(asked(r.summary)).toEqual([]);
    expect(r.summary).toContain("Which port does the API listen on now?");

    // The tail goes on to a question of its own: the window's is still not the one the session ends on.
    w.assistant([{ type: "text", text: "Shall I also set the port in the staging env file?" }]);
    const r2 = compactSession(await readSession(w.file), { now: NOW, keepTail: 4 });
    expect(r2.stats.range?.to).toBe(3);
    expect(asked(r2.summary)).toEqual([]);
  });
});

describeShared("Pi's own extension compaction (generated-pi-1.6.0)", () => {
  it("the question before Pi's kept entry is answered there, so it is not listed as unanswered", async () => {
    const session = await readSession(sharedFixture("sessions", "generated-pi-1.6.0__agentsession-faux-ext-compaction.jsonl"));
    const r = compactSession(session);
    // "Anything else?" (#6) is answered by "Second answer." (#7), the entry Pi's compaction kept first.
    expect(r.summary).toContain("Anything else?");
    expect(asked(r.summary)).toEqual([]);
  });
});
