// The fold engine on sessions Pi's SessionManager wrote: the ladder (threshold, enough foldable, cap,
// protected tail, current-loop thinking), estimated usage, a session file that does not exist yet,
// records, and stubs that are a pure function of their span.
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { appendRecord, readSeedIndexFile, validateRecord } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { applyFolds } from "../src/fold/apply-folds.js";
import { ContextFolder } from "../src/fold/context-folder.js";
import { assessFold, planFold } from "../src/fold/fold-planner.js";
import { FoldState } from "../src/fold/fold-state.js";
import { LedgerTracker } from "../src/ledger-tracker.js";
import { DEFAULT_FOLD_OPTIONS, type FoldOptions } from "../src/options.js";
import { renderStub, STUB_PREFIX } from "../src/fold/stub.js";
import { appendJob, writeJobSession } from "./support/pi-written-session.js";

function folderFor(file: string, sessionId: string, options: FoldOptions = DEFAULT_FOLD_OPTIONS): { folder: ContextFolder; seedIndex: string } {
  const seedIndex = join(tempDir("seed-"), "seed-index.jsonl");
  const folder = new ContextFolder(new FoldState(), options, { sessionId, seedIndex, ledger: new LedgerTracker(file) });
  return { folder, seedIndex };
}

/** The file's bytes, hashed: taken before a run and compared after it. */
function fileHash(file: string): string {
  return createHash("sha256").update(readFileSync(file)).digest("hex");
}

function texts(messages: readonly Record<string, unknown>[]): string {
  return JSON.stringify(messages);
}

describe("the fold ladder", () => {
  test("below the threshold nothing folds; above it stale outputs fold, the tail stays verbatim", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 8);
    const { folder, seedIndex } = folderFor(s.file, s.manager.getSessionId());
    const before = fileHash(s.file);
    const messages = s.messages();
    expect(await folder.process(messages, { tokens: 1000, contextWindow: 20_000 })).toBeUndefined();
    expect(existsSync(seedIndex)).toBe(false);
    const out = await folder.process(messages, { tokens: 12_000, contextWindow: 20_000 });
    expect(out).toBeDefined();
    const sent = out as Record<string, unknown>[];
    expect(sent).toHaveLength(messages.length);
    expect(texts(sent)).not.toContain("NEEDLE-1");
    expect(texts(sent)).toContain("NEEDLE-8"); // newest output: protected
    expect(texts(sent)).toContain(STUB_PREFIX);
    // User text, assistant text and tool calls are never folded.
    for (const [i, m] of messages.entries()) {
      if (m["role"] === "user") expect(sent[i]).toBe(m);
      if (m["role"] === "assistant") {
        const parts = (sent[i]?.["content"] ?? []) as { type: string }[];
        const orig = m["content"] as { type: string }[];
        for (const [p, part] of orig.entries()) if (part.type !== "thinking") expect(parts[p]).toEqual(part);
      }
    }
    const { outcomes } = await readSeedIndexFile(seedIndex);
    expect(outcomes).toHaveLength(1);
    const record = outcomes[0]?.outcome === "record" ? outcomes[0].record : undefined;
    expect(record === undefined ? false : validateRecord(record).ok).toBe(true);
    expect(record?.trigger).toBe("threshold");
    expect(record?.usage).toEqual({ tokens: 12_000, contextWindow: 20_000, fraction: 0.6 });
    expect(record?.commands).toContain("./job.sh 1");
    expect(record?.userMessages[0]).toEqual({ turn: 1, firstLine: "job 1" });
    // The session file is read, never written.
    expect(fileHash(s.file)).toBe(before);
  });

  test("a small window still folds: the tail is a fraction of the window", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 6, { rows: 40, thinkingChars: 1300 });
    const plan = planFold(s.messages(), { tokens: 3000, contextWindow: 4000, estimated: false }, new FoldState(), DEFAULT_FOLD_OPTIONS);
    expect(plan?.trigger).toBe("cap");
    expect(plan?.candidates.length).toBeGreaterThan(0);
  });

  test("over the threshold with too little to reclaim: no fold event; over the cap: fold at once", () => {
    const s = writeJobSession(tempDir(), tempDir(), 4, { rows: 100, thinkingChars: 100 });
    const messages = s.messages();
    const state = new FoldState();
    const big = { ...DEFAULT_FOLD_OPTIONS, minFoldFraction: 0.5 };
    expect(planFold(messages, { tokens: 10_000, contextWindow: 20_000, estimated: false }, state, big)).toBeUndefined();
    const cap = planFold(messages, { tokens: 15_000, contextWindow: 20_000, estimated: false }, state, big);
    expect(cap?.trigger).toBe("cap");
    expect(cap?.candidates.every((c) => c.kind === "toolResult")).toBe(true); // thinking under minBlockChars
  });

  test("the fold floor: reached only when usage minus everything foldable stays at or over the threshold", () => {
    const s = writeJobSession(tempDir(), tempDir(), 4, { rows: 100, thinkingChars: 100 });
    const messages = s.messages();
    const state = new FoldState();
    const usage = (tokens: number) => ({ tokens, contextWindow: 20_000, estimated: false });
    const plan = assessFold(messages, usage(10_000), state, DEFAULT_FOLD_OPTIONS);
    // Under the threshold: nothing to decide.
    expect(assessFold(messages, usage(8_000), state, DEFAULT_FOLD_OPTIONS)).toEqual({ plan: undefined, floorReached: false });
    // Folding what is foldable brings 10k back under the threshold (9k): no floor.
    expect(plan.plan).toBeDefined();
    expect(plan.floorReached).toBe(10_000 - (plan.plan?.reclaim ?? 0) >= 9_000);
    expect(plan.floorReached).toBe(false);
    // The same foldable blocks, but a context so full of stubs and small messages that folding them all
    // still leaves it over the threshold: the floor, whether or not a fold is worth making now.
    const full = usage(9_000 + (plan.plan?.reclaim ?? 0));
    expect(assessFold(messages, full, state, DEFAULT_FOLD_OPTIONS).floorReached).toBe(true);
    expect(assessFold(messages, full, state, { ...DEFAULT_FOLD_OPTIONS, minFoldFraction: 0.9 })).toEqual({ plan: undefined, floorReached: true });
    // Folding disabled: no floor (folding is not what keeps the context down).
    expect(assessFold(messages, full, state, { ...DEFAULT_FOLD_OPTIONS, enabled: false }).floorReached).toBe(false);
  });

  test("over the cap, process appends a cap record; later events continue the seq and the stretch", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 10);
    const { folder, seedIndex } = folderFor(s.file, s.manager.getSessionId());
    const messages = s.messages();
    await folder.process(messages.slice(0, 20), { tokens: 15_000, contextWindow: 20_000 });
    await folder.process(messages, { tokens: 15_000, contextWindow: 20_000 });
    const { outcomes } = await readSeedIndexFile(seedIndex);
    const records = outcomes.flatMap((o) => (o.outcome === "record" ? [o.record] : []));
    expect(records.map((r) => [r.seq, r.trigger])).toEqual([
      [0, "cap"],
      [1, "cap"],
    ]);
    // Each record describes its own stretch: the second starts after the first one's.
    expect(records[0]?.userMessages.map((u) => u.turn)).toContain(1);
    expect(records[1]?.userMessages.map((u) => u.turn)).not.toContain(1);
    const spans = records.flatMap((r) => r.spans.map((x) => x.blockId));
    expect(new Set(spans).size).toBe(spans.length); // a block folds once
  });

  test("the ledger is read only when the snapshot already read lacks what the call folds or feeds", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 10);
    const ledger = new LedgerTracker(s.file);
    const seedIndex = join(tempDir("seed-"), "seed-index.jsonl");
    const folder = new ContextFolder(new FoldState(), DEFAULT_FOLD_OPTIONS, { sessionId: s.manager.getSessionId(), seedIndex, ledger });
    await ledger.current(); // another handler (the gate, at a run's end) read the file
    expect(ledger.reads).toBe(1);
    // Pi appends a turn; near the threshold, the stretch is fed up to the protected tail, which the
    // snapshot holds: no read.
    appendJob(s.manager, 11, Date.UTC(2026, 10, 30, 12));
    await folder.process(s.messages(), { tokens: 8_000, contextWindow: 20_000 });
    // The feed runs after the call went out (while the model works), never before the hook returns.
    expect(folder.preparedThrough).toBe(-1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(folder.preparedThrough).toBeGreaterThan(0);
    expect(ledger.reads).toBe(1);
    // A fold event over blocks the snapshot holds: still no read, and the record is the same as with one.
    const out = await folder.process(s.messages(), { tokens: 12_000, contextWindow: 20_000 });
    expect(out).toBeDefined();
    expect(folder.state.get("r:call_1")).toBeDefined();
    expect(ledger.reads).toBe(1);
    const { outcomes } = await readSeedIndexFile(seedIndex);
    const record = outcomes[0]?.outcome === "record" ? outcomes[0].record : undefined;
    expect(record?.userMessages[0]).toEqual({ turn: 1, firstLine: "job 1" });
    // The context holds blocks the snapshot lacks (a long run, no gate read since): the file is read.
    for (let n = 12; n <= 16; n++) appendJob(s.manager, n, Date.UTC(2026, 10, 30, 13, n));
    await folder.process(s.messages(), { tokens: 16_000, contextWindow: 20_000 });
    expect(ledger.reads).toBe(2);
    expect(folder.state.get("r:call_12")).toBeDefined();
  });

  test("after a fold event only the folded messages are replaced: the same messages as folding the whole context", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 12);
    const { folder } = folderFor(s.file, s.manager.getSessionId());
    const messages = s.messages();
    // A first event folds the oldest jobs; the second (more usage, a longer context) folds more, next to
    // the stubs the first left.
    const first = await folder.process(messages.slice(0, 24), { tokens: 12_000, contextWindow: 20_000 });
    const before = folder.state.size;
    expect(before).toBeGreaterThan(0);
    expect(JSON.stringify(first)).toBe(JSON.stringify(applyFolds(messages.slice(0, 24), folder.state)));
    const second = await folder.process(messages, { tokens: 15_000, contextWindow: 20_000 });
    expect(folder.state.size).toBeGreaterThan(before);
    expect(second).toHaveLength(messages.length);
    expect(JSON.stringify(second)).toBe(JSON.stringify(applyFolds(messages, folder.state)));
    // Untouched messages are Pi's own objects, as applyFolds leaves them.
    for (const [i, m] of messages.entries()) if (m["role"] === "user") expect(second?.[i]).toBe(m);
  });

  test("a record another writer appended meanwhile keeps its seq: the fold takes the next one", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 10);
    const { folder, seedIndex } = folderFor(s.file, s.manager.getSessionId());
    await appendRecord(seedIndex, { v: 2, kind: "fold-retract", seq: 4, at: "2026-11-29T12:00:00.000Z" });
    await folder.process(s.messages(), { tokens: 12_000, contextWindow: 20_000 });
    const { outcomes } = await readSeedIndexFile(seedIndex);
    expect(outcomes.map((o) => (o.outcome === "record" || o.outcome === "retract" ? o.record.seq : -1))).toEqual([4, 5]);
    expect(folder.state.nextSeq).toBe(6);
  });

  test("thinking of the current tool-use loop never folds", () => {
    const s = writeJobSession(tempDir(), tempDir(), 5);
    const messages = s.messages().slice(0, -2); // ends inside job 5's loop: user, assistant(thinking+call)
    const options = { ...DEFAULT_FOLD_OPTIONS, tailFraction: 0, keepRecentResults: 0 };
    const plan = planFold(messages, { tokens: 19_000, contextWindow: 20_000, estimated: false }, new FoldState(), options);
    const anchors = plan?.candidates.map((c) => c.anchor) ?? [];
    expect(anchors).toContain("a:resp_4:p0");
    expect(anchors).not.toContain("a:resp_5:p0");
  });

  test("without a token count from Pi, usage is estimated from the outgoing messages", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 10);
    const { folder, seedIndex } = folderFor(s.file, s.manager.getSessionId());
    const out = await folder.process(s.messages(), { tokens: null, contextWindow: 8000 }, 500);
    expect(out).toBeDefined();
    expect(folder.lastUsage?.estimated).toBe(true);
    const { outcomes } = await readSeedIndexFile(seedIndex);
    const record = outcomes[0]?.outcome === "record" ? outcomes[0].record : undefined;
    expect(record?.usage?.tokens).toBe(folder.lastUsage?.tokens);
    // No window at all (no model): nothing folds, nothing breaks.
    const { folder: other } = folderFor(s.file, s.manager.getSessionId());
    expect(await other.process(s.messages(), undefined)).toBeUndefined();
  });

  test("a session file that does not exist yet: calls pass through, the fold comes once Pi writes it", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 8);
    const missing = join(tempDir(), "not-yet.jsonl");
    const { folder, seedIndex } = folderFor(missing, s.manager.getSessionId());
    expect(await folder.process(s.messages(), { tokens: 12_000, contextWindow: 20_000 })).toBeUndefined();
    expect(existsSync(seedIndex)).toBe(false);
    const { folder: later } = folderFor(s.file, s.manager.getSessionId());
    expect(await later.process(s.messages(), { tokens: 12_000, contextWindow: 20_000 })).toBeDefined();
  });

  test("a context text that differs from the ledger is never folded (the stub would point at other text)", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 8);
    const messages = s.messages().map((m) =>
      m["toolCallId"] === "call_1" ? { ...m, content: [{ type: "text", text: "edited by another extension ".repeat(80) }] } : m,
    );
    const { folder } = folderFor(s.file, s.manager.getSessionId());
    const out = (await folder.process(messages, { tokens: 12_000, contextWindow: 20_000 })) ?? [];
    expect(texts(out)).toContain("edited by another extension");
    expect(folder.state.get("r:call_1")).toBeUndefined();
    expect(folder.state.get("r:call_2")).toBeDefined();
  });

  test("restored state renders the same stubs (frozen across processes)", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 8);
    const { folder, seedIndex } = folderFor(s.file, s.manager.getSessionId());
    const first = await folder.process(s.messages(), { tokens: 12_000, contextWindow: 20_000 });
    const { outcomes } = await readSeedIndexFile(seedIndex);
    const records = outcomes.flatMap((o) => (o.outcome === "record" ? [o.record] : []));
    const restored = new ContextFolder(FoldState.restore(records, records.length), DEFAULT_FOLD_OPTIONS, undefined);
    const again = await restored.process(s.messages(), { tokens: 5000, contextWindow: 20_000 });
    expect(JSON.stringify(again)).toBe(JSON.stringify(first));
  });
});

describe("the footer's masked tokens", () => {
  test("follow every fold and unfold (summed again only when the folded spans change)", async () => {
    const s = writeJobSession(tempDir(), tempDir(), 8);
    const { folder } = folderFor(s.file, s.manager.getSessionId());
    const sum = (): number => folder.state.spans().reduce((n, span) => n + Math.max(0, Math.ceil(span.bytes / 4) - 70), 0);
    expect(folder.maskedTokens()).toBe(0);
    await folder.process(s.messages(), { tokens: 12_000, contextWindow: 20_000 });
    expect(folder.state.size).toBeGreaterThan(1);
    expect(folder.maskedTokens()).toBeGreaterThan(0);
    expect(folder.maskedTokens()).toBe(sum());
    const [first] = folder.state.spans();
    folder.state.unfold(first?.code ?? "");
    expect(folder.maskedTokens()).toBe(sum());
  });
});

describe("stubs", () => {
  test("carry code, tool, size and first line; same input, same bytes", () => {
    const span = { code: "abcdefghij", kind: "toolResult", tool: "bash", bytes: 48211, lines: 1204 } as const;
    const text = "\n\n  FAIL tests/ladder.test.ts > step advance\nmore";
    const stub = renderStub(span, text);
    expect(stub).toBe(
      '[context-fold abcdefghij] folded tool output of bash: 48211 bytes, 1204 lines.\nFirst line:   FAIL tests/ladder.test.ts > step advance\nFull text: call context_recall with {"code":"abcdefghij"}.',
    );
    expect(renderStub(span, text)).toBe(stub);
  });

  test("a 1 MB single-line block gives a short stub, fast", () => {
    const stub = renderStub({ code: "abcdefghij", kind: "thinking", bytes: 1_000_000, lines: 1 }, "a".repeat(1_000_000));
    expect(stub.length).toBeLessThan(400);
  });
});

describe("the seed index's append lock inside a hook", () => {
  test("held by another writer: the fold waits at most ~50 ms, is deferred (said once), and goes in once the lock is free", async () => {
    const { acquireAppendLock } = await import("@context-fold/durable-fs");
    const s = writeJobSession(tempDir(), tempDir(), 8);
    const { folder, seedIndex } = folderFor(s.file, s.manager.getSessionId());
    const messages = s.messages();
    const held = await acquireAppendLock(seedIndex);
    try {
      const started = performance.now();
      expect(await folder.process(messages, { tokens: 12_000, contextWindow: 20_000 })).toBeUndefined();
      expect(performance.now() - started).toBeLessThan(2_000);
      expect(existsSync(seedIndex)).toBe(false);
      expect(folder.takeNotice()).toMatch(/deferred/);
      expect(await folder.process(messages, { tokens: 12_000, contextWindow: 20_000 })).toBeUndefined();
      expect(folder.takeNotice()).toBeUndefined(); // said once
    } finally {
      held.release();
    }
    const out = await folder.process(messages, { tokens: 12_000, contextWindow: 20_000 });
    expect(texts(out as Record<string, unknown>[])).toContain(STUB_PREFIX);
    const { outcomes } = await readSeedIndexFile(seedIndex);
    expect(outcomes.map((o) => o.outcome)).toEqual(["record"]);
  });
});

describe("anchors come from ledger-reader's message converter", () => {
  test("a tool result whose id makes no anchor is never a candidate, and planning does not throw", () => {
    const big = "x".repeat(5000);
    const messages = [
      { role: "user", content: "go" },
      { role: "toolResult", toolCallId: "call:edit:0123abcd", toolName: "bash", content: [{ type: "text", text: big }] },
      { role: "toolResult", toolCallId: "call_ok", toolName: "bash", content: [{ type: "text", text: big }] },
      { role: "user", content: "next" },
      { role: "toolResult", toolCallId: "call_new1", toolName: "bash", content: [{ type: "text", text: "y" }] },
      { role: "toolResult", toolCallId: "call_new2", toolName: "bash", content: [{ type: "text", text: "z" }] },
    ];
    const plan = planFold(messages, { tokens: 9_000, contextWindow: 10_000, estimated: false }, new FoldState(), { ...DEFAULT_FOLD_OPTIONS, minFoldFraction: 0 });
    expect(plan?.candidates.map((c) => c.anchor)).toEqual(["r:call_ok"]);
  });
});
