// The extension inside a real, headless Pi: folds fire on usage, records are appended and valid, the
// provider receives stubs and otherwise Pi's messages, recall by code returns the verified needle, a
// restart keeps the same folds byte for byte, and a failure of ours leaves Pi working.
import { mkdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { currentView, readSeedIndexFile, seedIndexPath, validateRecord, type FoldIndexRecord } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { STUB_PREFIX } from "../src/fold/stub.js";
import { type HeadlessPi, type ReceivedCall, startPi } from "./support/headless-pi.js";
import { needle, scriptedModel, STUB_RE_SOURCE } from "./support/scripted-model.js";

const WINDOW = 20_000;
const JOBS = 9;

function nonSystem(messages: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  return messages.filter((m) => m["role"] !== "system");
}

function contentText(message: Record<string, unknown>): string {
  const content = message["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
}

/** toolCallId → stub text, for every folded tool result a call received. */
function stubsIn(call: ReceivedCall): Map<string, string> {
  const out = new Map<string, string>();
  for (const m of call.messages) {
    if (m["role"] !== "toolResult") continue;
    const text = contentText(m);
    if (text.startsWith(STUB_PREFIX)) out.set(String(m["toolCallId"]), text);
  }
  return out;
}

async function records(file: string): Promise<FoldIndexRecord[]> {
  const { outcomes } = await readSeedIndexFile(file);
  return outcomes.flatMap((o) => (o.outcome === "record" ? [o.record] : []));
}

describe("context-fold in a headless Pi", () => {
  const dir = tempDir("pi-fold-");
  let pi: HeadlessPi;
  let sessionFile: string;
  let seedIndex: string;

  // This file is about folds. Its session ends at the fold floor (stubs and the protected tail alone
  // fill ~46% of a 20k window, the threshold is 45%), where our gate may legitimately compact after a
  // run; fold-floor-in-pi tests that. A compaction between two tests here changes what the restart test
  // compares, and in two full-suite CI runs the gate did fire there (never when this file ran alone), so
  // our gate is kept from firing in this file: no compaction can reclaim the whole window.
  const savedMinSavings = process.env["CONTEXT_FOLD_COMPACT_MIN_SAVINGS"];
  beforeAll(async () => {
    process.env["CONTEXT_FOLD_COMPACT_MIN_SAVINGS"] = "1";
    pi = await startPi({ dir, contextWindow: WINDOW, respond: scriptedModel });
    for (let n = 1; n <= JOBS; n++) await pi.session.prompt(`job ${String(n)}`);
    sessionFile = pi.manager.getSessionFile() ?? "";
    seedIndex = seedIndexPath(sessionFile, pi.manager.getSessionId());
  }, 120_000);
  afterAll(() => {
    pi.dispose();
    if (savedMinSavings === undefined) delete process.env["CONTEXT_FOLD_COMPACT_MIN_SAVINGS"];
    else process.env["CONTEXT_FOLD_COMPACT_MIN_SAVINGS"] = savedMinSavings;
  });

  test("usage crosses the threshold: fold events append valid fold-index records", async () => {
    const recs = await records(seedIndex);
    expect(recs.length).toBeGreaterThanOrEqual(2);
    for (const [i, record] of recs.entries()) {
      expect(validateRecord(record).ok).toBe(true);
      expect(record.seq).toBe(i);
      expect(record.kind).toBe("fold-index");
      expect(record.trigger).toBe("threshold");
      expect(record.usage?.contextWindow).toBe(WINDOW);
      expect(record.usage?.fraction).toBeGreaterThanOrEqual(0.45);
      expect(record.spans.length).toBeGreaterThan(0);
      for (const span of record.spans) expect(span.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
    // The first jobs' outputs are folded, with their commands recorded from the tool calls.
    const tools = recs.flatMap((r) => r.spans.filter((s) => s.blockId.startsWith("r:")).map((s) => s.blockId));
    expect(tools).toContain("r:call_job_1");
    expect(recs[0]?.commands.some((c) => c.includes("job 1 row"))).toBe(true);
    // Old thinking folded too (anchored by responseId and part index).
    expect(recs.some((r) => r.spans.some((s) => /^a:resp_\d+:p0$/.test(s.blockId)))).toBe(true);
  });

  test("the provider receives stubs in place of folded blocks and Pi's messages otherwise", async () => {
    const recs = await records(seedIndex);
    const codeOf = new Map(recs.flatMap((r) => r.spans.map((s) => [s.blockId, s.code] as const)));
    const last = pi.calls[pi.calls.length - 1] as ReceivedCall;
    const sent = nonSystem(last.messages);
    const original = nonSystem(JSON.parse(JSON.stringify(pi.session.messages)) as Record<string, unknown>[]);
    expect(sent.length).toBeGreaterThan(10);
    let stubs = 0;
    let thinkingStubs = 0;
    for (const [i, message] of sent.entries()) {
      const base = original[i] as Record<string, unknown>;
      expect(message["role"]).toBe(base["role"]);
      if (message["role"] === "toolResult" && codeOf.has(`r:${String(message["toolCallId"])}`)) {
        const code = codeOf.get(`r:${String(message["toolCallId"])}`) ?? "";
        const stub = contentText(message);
        expect(stub.startsWith(`${STUB_PREFIX}${code}]`)).toBe(true);
        expect(stub).toContain("bash");
        expect(stub).not.toContain("NEEDLE");
        expect({ ...message, content: null }).toEqual({ ...base, content: null });
        stubs += 1;
        continue;
      }
      if (message["role"] === "assistant") {
        const parts = message["content"] as { type: string; text?: string; thinking?: string }[];
        const baseParts = base["content"] as { type: string; text?: string; thinking?: string }[];
        expect(parts.length).toBe(baseParts.length);
        for (const [p, part] of parts.entries()) {
          const folded = codeOf.get(`a:${String(base["responseId"])}:p${String(p)}`);
          if (folded !== undefined) {
            // Removed thinking: a text stub, never a thinking part with changed text.
            expect(part.type).toBe("text");
            expect(part.text?.startsWith(`${STUB_PREFIX}${folded}] folded thinking`)).toBe(true);
            thinkingStubs += 1;
          } else expect(part).toEqual(baseParts[p]);
        }
        expect({ ...message, content: null }).toEqual({ ...base, content: null });
        continue;
      }
      expect(message).toEqual(base);
    }
    expect(stubs).toBeGreaterThanOrEqual(2);
    expect(thinkingStubs).toBeGreaterThanOrEqual(1);
    // The newest job output is in the protected tail: verbatim, needle included.
    expect(JSON.stringify(sent)).toContain(needle(JOBS));
  });

  test("folded layers are frozen: every later call carries byte-identical stubs", () => {
    const seen = new Map<string, string>();
    let firstFoldCall = -1;
    for (const [k, call] of pi.calls.entries()) {
      const stubs = stubsIn(call);
      if (stubs.size > 0 && firstFoldCall < 0) firstFoldCall = k;
      for (const [id, stub] of seen) expect(stubs.get(id)).toBe(stub); // once folded, always the same bytes
      for (const [id, stub] of stubs) if (!seen.has(id)) seen.set(id, stub);
    }
    expect(firstFoldCall).toBeGreaterThan(0);
    expect(seen.size).toBeGreaterThanOrEqual(2);
  });

  test("the scripted model calls context_recall with a code and receives the needle's verified text", async () => {
    await pi.session.prompt("recall first");
    const last = pi.calls[pi.calls.length - 1] as ReceivedCall;
    const result = last.messages.find((m) => m["role"] === "toolResult" && m["toolName"] === "context_recall");
    expect(result).toBeDefined();
    const text = contentText(result as Record<string, unknown>);
    expect(text).toContain("verified: sha256 matches the session file");
    expect(text).toContain(needle(1));
    expect(result?.["isError"]).toBe(false);
    // The recalled text is the whole original output, not a preview.
    const lines = text.split("\n").filter((l) => l.startsWith("job 1 row"));
    expect(lines.length).toBe(140);
  });

  test("/context-fold shows status; unfold restores a block verbatim and is recorded in the session", async () => {
    await pi.session.prompt("/context-fold");
    const status = pi.notices[pi.notices.length - 1]?.text ?? "";
    expect(status).toMatch(/blocks folded in \d+ fold events; ~\d+ tokens masked/);
    expect(status).toContain("Next fold");
    const recs = await records(seedIndex);
    const span = recs.flatMap((r) => r.spans).find((s) => s.blockId === "r:call_job_2");
    expect(span).toBeDefined();
    await pi.session.prompt(`/context-fold unfold ${span?.code ?? ""}`);
    expect(pi.notices[pi.notices.length - 1]?.text).toContain(`Unfolded ${span?.code ?? ""}`);
    await pi.session.prompt("hello");
    const sent = (pi.calls[pi.calls.length - 1] as ReceivedCall).messages;
    const job2 = sent.find((m) => m["toolCallId"] === "call_job_2");
    expect(contentText(job2 as Record<string, unknown>)).toContain(needle(2));
    const file = readFileSync(sessionFile, "utf8");
    expect(file).toContain('"customType":"context-fold-unfold"');
  });

  test("/recall shows results and hands them to the agent", async () => {
    const before = pi.notices.length;
    await pi.session.prompt(`/recall ${needle(3)}`);
    const shown = pi.notices.slice(before).map((n) => n.text).join("\n");
    expect(shown).toContain("Found");
    expect(shown).toContain(needle(3));
    await pi.session.prompt("hello again");
    const sent = (pi.calls[pi.calls.length - 1] as ReceivedCall).messages;
    expect(sent.some((m) => contentText(m).includes("Recall results the user asked for") && contentText(m).includes(needle(3)))).toBe(true);
  });

  test("/recall names its own page syntax and the mode that ran; its earlier output is not found again", async () => {
    const before = pi.notices.length;
    await pi.session.prompt("/recall job row");
    const shown = pi.notices.slice(before).map((n) => n.text).join("\n");
    expect(shown).toContain("(words)");
    expect(shown).toContain("More: page:2");
    expect(shown).not.toContain("--page");
    const again = pi.notices.length;
    await pi.session.prompt("/recall fail.*build|Recall results the user asked");
    const regex = pi.notices.slice(again).map((n) => n.text).join("\n");
    // A bare query in regex syntax runs as a regex; the /recall messages it would match are not history.
    expect(regex).toContain("No matches");
    expect(regex).toContain("(regex");
  });

  test("a restart keeps the same folds: rebuilt from the seed index, byte-identical stubs", async () => {
    const before = pi.calls[pi.calls.length - 1] as ReceivedCall;
    const stubsBefore = stubsIn(before);
    expect(stubsBefore.has("call_job_2")).toBe(false); // unfolded above
    const fileBefore = readFileSync(sessionFile, "utf8");
    const recordsBefore = (await records(seedIndex)).length;
    const noticesBefore = pi.notices.map((n) => n.text.split("\n")[0] ?? "");
    pi.dispose();
    pi = await startPi({ dir, open: sessionFile, contextWindow: WINDOW, respond: scriptedModel });
    await pi.session.prompt("after restart");
    const first = pi.calls[0] as ReceivedCall;
    const stubsAfter = stubsIn(first);
    // On a mismatch, say what the first call after the restart was and what the user was told.
    const compactions = (readFileSync(sessionFile, "utf8").match(/"type":"compaction"/g) ?? []).length;
    const seen = `${String(pi.calls.length)} call(s); first call's messages: ${first.messages.map((m) => m.role).join(",")}; compaction entries: ${String(compactions)}; notices: ${pi.notices.map((n) => n.text).join(" | ")}; before the restart: ${noticesBefore.join(" | ")}`;
    expect(stubsAfter.size, seen).toBe(stubsBefore.size);
    for (const [id, stub] of stubsBefore) expect(stubsAfter.get(id)).toBe(stub);
    expect(stubsAfter.has("call_job_2")).toBe(false); // the unfold survived the restart
    // Pi only appended to the session file; we never rewrote it.
    expect(readFileSync(sessionFile, "utf8").startsWith(fileBefore)).toBe(true);
    const view = currentView((await readSeedIndexFile(seedIndex)).outcomes);
    expect(view.length).toBeGreaterThanOrEqual(recordsBefore);
  }, 60_000);
});

describe("a failure of ours leaves Pi working", () => {
  test("an unwritable seed index: turns go out unfolded, the user is told once, every turn completes", async () => {
    const dir = tempDir("pi-fold-fail-");
    const pi = await startPi({ dir, contextWindow: WINDOW, respond: scriptedModel });
    try {
      await pi.session.prompt("job 1");
      const sessionFile = pi.manager.getSessionFile() ?? "";
      // A directory where the seed index file must go: every append fails (EISDIR).
      mkdirSync(seedIndexPath(sessionFile, pi.manager.getSessionId()), { recursive: true });
      for (let n = 2; n <= JOBS; n++) await pi.session.prompt(`job ${String(n)}`);
      // Failure notices only (other parts of the extension may give advice, e.g. about compaction).
      const warnings = pi.notices.filter((n) => n.text.startsWith("context-fold:") && n.text.includes(" failed ("));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.text).toContain("failed");
      // Nothing folded: every call carried Pi's messages, needles and all.
      const stub = new RegExp(STUB_RE_SOURCE);
      for (const call of pi.calls) for (const m of call.messages) expect(stub.test(contentText(m))).toBe(false);
      const last = pi.calls[pi.calls.length - 1] as ReceivedCall;
      for (let n = 1; n <= JOBS; n++) expect(JSON.stringify(last.messages)).toContain(needle(n));
      // Every turn completed: each job got its bash result and a final reply.
      const assistants = pi.session.messages.filter((m) => m.role === "assistant");
      expect(assistants).toHaveLength(JOBS * 2);
      await pi.session.prompt("/context-fold");
      expect(pi.notices[pi.notices.length - 1]?.text).toContain("New folds are off");
    } finally {
      pi.dispose();
    }
  }, 120_000);
});

describe("an in-memory session (no session file at all)", () => {
  test("nothing folds, nothing breaks, and /context-fold says why", async () => {
    const pi = await startPi({ dir: tempDir("pi-fold-mem-"), inMemory: true, contextWindow: WINDOW, respond: scriptedModel });
    try {
      for (let n = 1; n <= JOBS; n++) await pi.session.prompt(`job ${String(n)}`);
      const stub = new RegExp(STUB_RE_SOURCE);
      for (const call of pi.calls) for (const m of call.messages) expect(stub.test(contentText(m))).toBe(false);
      expect(pi.session.messages.filter((m) => m.role === "assistant")).toHaveLength(JOBS * 2);
      await pi.session.prompt("/context-fold");
      expect(pi.notices[pi.notices.length - 1]?.text).toContain("in-memory session");
      expect(pi.notices.some((n) => n.text.includes(" failed ("))).toBe(false);
    } finally {
      pi.dispose();
    }
  }, 120_000);
});
