// The prose that reads a tool output back is that output's caption: on a session Pi's SessionManager
// wrote, a question in the prose's words puts the output the prose quotes first and the prose next, and
// output the prose does not quote (one shared value, another turn) gains nothing.
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { HistoryIndex, RecallIndex, searchSessions } from "../src/index.js";
import { quotedSources } from "../src/quoted-sources.js";
import { TermIndex } from "../src/term-index.js";
import { assistant, toolResult, user, writtenByPi } from "./support/pi-session.js";

function pagerSession(): string {
  return writtenByPi((sm) => {
    sm.appendMessage(user("is the on-call queue healthy? check the status service"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_sum", name: "bash", arguments: { command: "curl -s https://status.internal/v2/summary | jq .counts" } }]));
    sm.appendMessage(toolResult("call_sum", "bash", '{"open": 37, "sev1": 4, "sev2": 11, "runbook": "rb-7781", "oldest": "2026-03-02T08:15Z"}'));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_ver", name: "bash", arguments: { command: "curl -s https://status.internal/version" } }]));
    sm.appendMessage(toolResult("call_ver", "bash", "status-svc 37.0.2 build 5519"));
    sm.appendMessage(assistant([{ type: "text", text: "The pager API reports 37 open incidents right now: 4 of them sev1 and 11 sev2; the runbook to follow is rb-7781." }]));
    sm.appendMessage(user("thanks, now look at the deploy queue"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_dep", name: "bash", arguments: { command: "kubectl get jobs -n deploy" } }]));
    sm.appendMessage(toolResult("call_dep", "bash", "deploy-8812   1/1   4m\ndeploy-8813   0/1   11m"));
    sm.appendMessage(assistant([{ type: "text", text: "Two deploy jobs: 8812 finished, 8813 is still running after 11 minutes; the pager incidents are unrelated." }]));
  });
}

describe("prose quoting a tool output", () => {
  it("puts the quoted output first for a question in the prose's words, the prose next", async () => {
    const session = await readSession(pagerSession());
    const index = RecallIndex.build(session);
    const summary = session.blocks.find((b) => b.kind === "toolResult" && b.text.includes("rb-7781"));
    const prose = session.blocks.find((b) => b.kind === "text" && b.text.includes("pager API"));
    const hits = index.search("How many open incidents did the pager API report?").hits.map((h) => h.index);
    expect(hits.slice(0, 2)).toEqual([summary?.index, prose?.index]);
  });
  it("links only outputs of the same turn sharing two rare values", async () => {
    const session = await readSession(pagerSession());
    const terms = new TermIndex();
    terms.addDocuments(0, session.blocks.map((b) => b.text));
    const at = (pred: (text: string) => boolean, kind: string): number => session.blocks.findIndex((b) => b.kind === kind && pred(b.text));
    const summary = at((t) => t.includes("rb-7781"), "toolResult");
    const version = at((t) => t.includes("status-svc"), "toolResult");
    const jobs = at((t) => t.includes("deploy-8812"), "toolResult");
    const first = at((t) => t.includes("pager API"), "text");
    const second = at((t) => t.includes("Two deploy jobs"), "text");
    const none = (): boolean => false;
    // The version output shares only 37 with the first prose; the second prose's turn starts after the summary.
    expect(quotedSources(session.blocks, first, terms, none)).toEqual([summary]);
    expect(version).toBeGreaterThan(summary);
    expect(quotedSources(session.blocks, second, terms, none)).toEqual([jobs]);
    // Tool outputs and the user's words quote nothing.
    expect(quotedSources(session.blocks, summary, terms, none)).toEqual([]);
    expect(quotedSources(session.blocks, 0, terms, none)).toEqual([]);
    // Output that is not history lends nothing.
    expect(quotedSources(session.blocks, first, terms, (k) => k === summary)).toEqual([]);
  });
  it("ranks the same across a history as in its own session (issue 27: one ranking, wherever a hit is found)", async () => {
    const dir = tempDir("quoted-history-");
    mkdirSync(join(dir, "--project--"), { recursive: true });
    copyFileSync(pagerSession(), join(dir, "--project--", "pager.jsonl"));
    const history = HistoryIndex.for(dir, { root: tempDir("quoted-history-state-") });
    for (const query of ["How many open incidents did the pager API report?", "which deploy job is still running", "rb-7781 runbook"]) {
      const each = await searchSessions(dir, query, { cache: false });
      const across = await history.search(query);
      expect(across.hits.map((h) => [h.index, h.score]), query).toEqual(each.hits.map((h) => [h.index, h.score]));
      expect(across.total, query).toBe(each.total);
    }
    // The rule took part: the quoted output is the first hit across the history too.
    const first = (await history.search("How many open incidents did the pager API report?")).hits[0];
    const session = await readSession(join(dir, "--project--", "pager.jsonl"));
    expect(session.blocks[first?.index ?? -1]?.text).toContain("rb-7781");
    expect(session.blocks[first?.index ?? -1]?.kind).toBe("toolResult");
  });
});
