// Handoff seeds: goal (given or founding request) verbatim, open errors, decisions, pointers that
// resolve against the session, deterministic markdown, atomic writes beside the seed index.
import { cp, readdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildCompactRecord, type DurableArtifacts, type SessionFacts } from "@context-fold/extractors";
import { blockAt, readSession, resolveAnchor, type Session } from "@context-fold/ledger-reader";
import { appendRecord, currentView, type FoldIndexRecord, handoffPath, readSeedIndexFile, seedIndexPath } from "@context-fold/seed-index-format";
import { generateSession, type Manifest } from "@context-fold/session-gen";
import { buildHandoff, type HandoffDoc, sessionHandoff, writeHandoff } from "@context-fold/summary-formatter";
import { describeShared, LINEAR_TIME_MS, sessionFixtures, tempDir } from "@context-fold/test-support";

async function generated(seed: number): Promise<{ file: string; manifest: Manifest; session: Session; records: FoldIndexRecord[] }> {
  const file = join(tempDir("handoff-"), "session.jsonl");
  const manifest = await generateSession(file, { seed, turns: 48, compactions: 2 });
  let session = await readSession(file);
  const index = seedIndexPath(file, session.header.id);
  await appendRecord(index, buildCompactRecord(session, { seq: 0, scope: "lineage", trigger: "threshold" }));
  session = await readSession(file);
  const { outcomes } = await readSeedIndexFile(index);
  return { file, manifest, session, records: currentView(outcomes) };
}

/** Every pointer brings back what it names: spans verify by sha256, blocks exist (and their anchors resolve to them). */
function checkPointers(session: Session, doc: HandoffDoc, records: readonly FoldIndexRecord[], markdown: string): void {
  const spans = new Map(records.flatMap((r) => r.spans.map((s) => [s.code, s] as const)));
  for (const p of doc.pointers) {
    expect(markdown).toContain(p.command);
    if (p.kind === "span") {
      const span = spans.get(p.code ?? "");
      expect(span, p.code).toBeDefined();
      const resolved = resolveAnchor(session, span?.blockId ?? "", span?.sha256);
      expect(resolved.status, p.anchor).toBe("ok");
      if (resolved.status === "ok") expect(resolved.verified).toBe(true);
    } else {
      const block = blockAt(session, p.index ?? -1);
      expect(block, String(p.index)).toBeDefined();
      if (p.anchor !== undefined) {
        const resolved = resolveAnchor(session, p.anchor);
        expect(resolved.status).toBe("ok");
        if (resolved.status === "ok") expect(resolved.block.index).toBe(p.index);
      }
    }
  }
}

describe("handoff of a generated session", () => {
  it("holds the founding request, every open error, the corrections verbatim, and pointers that resolve", async () => {
    const { file, manifest, session, records } = await generated(11);
    expect(records.flatMap((r) => r.spans).length).toBeGreaterThan(0);
    const { doc, markdown } = sessionHandoff(session, { seedRecords: records, maxSpans: 1000 });
    expect(doc.goal.source).toBe("founding-request");
    expect(markdown).toContain(manifest.foundingRequest);
    expect(manifest.errorsOpenAtEnd.length).toBeGreaterThan(0);
    for (const line of manifest.errorsOpenAtEnd) {
      expect(doc.openErrors.some((e) => e.text.includes(line.trim())), line).toBe(true);
      expect(markdown).toContain(line.trim());
    }
    for (const fixed of manifest.errorsFixed) expect(doc.openErrors.some((e) => e.text.includes(fixed.trim())), fixed).toBe(false);
    for (const correction of manifest.corrections) expect(markdown).toContain(correction);
    expect(doc.pointers.filter((p) => p.kind === "span")).toHaveLength(new Set(records.flatMap((r) => r.spans.map((s) => s.blockId))).size);
    checkPointers(session, doc, records, markdown);
    expect(markdown).toContain(`context-fold recall ${file} --code ${records[0]?.spans[0]?.code ?? ""}`);
    expect(markdown).toContain(`# Handoff: session ${manifest.sessionId}`);
    // Deterministic: a fresh read builds byte-identical markdown.
    expect(sessionHandoff(await readSession(file), { seedRecords: records, maxSpans: 1000 }).markdown).toBe(markdown);
  });

  it("a given goal leads, the founding request stays verbatim; the span cap keeps the most recent", async () => {
    const { manifest, session, records } = await generated(12);
    const goal = "Ship the `parser` fix:\n```\nno regressions\n```";
    const { doc, markdown } = sessionHandoff(session, { goal, seedRecords: records, maxSpans: 3, now: "2026-12-01T00:00:00.000Z" });
    expect(doc.goal).toEqual({ text: goal, source: "given" });
    expect(markdown).toContain(`\n${goal}\n`);
    expect(markdown).toContain(manifest.foundingRequest);
    expect(markdown.indexOf(goal)).toBeLessThan(markdown.indexOf(manifest.foundingRequest));
    expect(markdown).toContain("Written 2026-12-01T00:00:00.000Z");
    const all = [...new Set(records.flatMap((r) => r.spans.map((s) => s.code)))];
    const listed = doc.pointers.filter((p) => p.kind === "span").map((p) => p.code);
    expect(listed).toEqual(all.slice(-3));
    expect(doc.spansOmitted).toBe(all.length - 3);
  });
});

describe("fold span pointers: only the newest held", () => {
  /** Today's rule over the whole view: an ordered map (the latest span of a blockId moves it last), its last `max` listed. */
  function wholeMapPointers(records: readonly FoldIndexRecord[], max: number): { codes: string[]; omitted: number } {
    const spans = new Map<string, { code: string; turn: number; bytes: number }>();
    for (const record of records) {
      for (const span of record.spans) {
        spans.delete(span.blockId);
        spans.set(span.blockId, { code: span.code, turn: span.turn, bytes: span.log.bytes });
      }
    }
    const all = [...spans.values()];
    const kept = max <= 0 ? [] : all.slice(-max);
    return { codes: kept.map((s) => `${s.code}/${String(s.turn)}/${String(s.bytes)}`), omitted: all.length - kept.length };
  }

  it("lists what a whole ordered map lists, blockIds named again in later records, given as records or walked", async () => {
    const { session, records } = await generated(13);
    const spans = records.flatMap((r) => r.spans);
    expect(spans.length).toBeGreaterThan(8);
    const base = records[0] as FoldIndexRecord;
    // Later records name earlier blocks again (with other turns and sizes), some of them more than once.
    const again = (from: number, step: number, turn: number) => spans.filter((_, i) => i >= from && i % step === 0).map((span) => ({ ...span, turn: span.turn + turn, log: { ...span.log, bytes: span.log.bytes + turn } }));
    const view: FoldIndexRecord[] = [...records, { ...base, seq: 1, spans: again(0, 3, 1) }, { ...base, seq: 2, spans: [...again(1, 5, 2), ...again(0, 7, 3)] }];
    for (const maxSpans of [0, 1, 3, 7, 40, 10_000]) {
      const expected = wholeMapPointers(view, maxSpans);
      const walked = { count: view.reduce((n, r) => n + r.spans.length, 0), forEach: (onSpan: (span: FoldIndexRecord["spans"][number]) => void) => view.forEach((r) => r.spans.forEach((span) => onSpan(span))) };
      for (const input of [{ seedRecords: view }, { seedSpans: walked }]) {
        const { doc } = sessionHandoff(session, { ...input, maxSpans });
        const listed = doc.pointers.filter((p) => p.kind === "span").map((p) => `${p.code ?? ""}/${String(p.turn)}/${String(p.bytes)}`);
        expect(listed, String(maxSpans)).toEqual(expected.codes);
        expect(doc.spansOmitted).toBe(expected.omitted);
      }
    }
  });
});

describe("handoff from hand-built facts", () => {
  const facts: SessionFacts = {
    goal: { text: "build the thing", turn: 1, index: 0 },
    scopeChanges: [{ text: "also add ```fenced``` docs", turn: 2, index: 7 }],
    preferences: [{ text: "never use any", turn: 2, index: 7 }],
    statements: [
      { text: "also add ```fenced``` docs", turn: 2, index: 7, count: 1 },
      { text: "the staging box is db-2 on port 6543", turn: 3, index: 11, count: 2 },
    ],
    files: [{ path: "src/a.ts", status: "modified", symbols: [], firstIndex: 2, lastIndex: 9, lastModifiedIndex: 9 }],
    typeCatalog: [],
    commits: [],
    outstanding: [
      { severity: "ERROR", resolved: false, text: "src/a.ts(3,1): error TS2304: Cannot find name 'x'.", source: "tsc", label: "tsc", turn: 2, index: 10, errorId: "TS2304" },
      { severity: "ERROR", resolved: true, resolvedIndex: 12, text: "FAIL old test", source: "tests", label: "bash:exit 1", turn: 1, index: 4 },
      { severity: "WARN", resolved: false, text: "deprecated flag", source: "compiler", label: "eslint", turn: 2, index: 11 },
    ],
    turns: [
      { turn: 1, index: 0, oneLine: "build the thing → edited src/a.ts" },
      { turn: 2, index: 7, oneLine: "also add docs → ran tsc" },
    ],
    status: { focus: "also add docs", focusIndex: 7, lastModification: { text: 'Edit "src/a.ts"', index: 9 }, nextSteps: ["fix TS2304"] },
    anchors: { commits: [], errorIds: ["TS2304"], keyFiles: ["src/a.ts"] },
    range: { first: 0, last: 12 },
  };
  const artifacts: DurableArtifacts = {
    initialPrompts: [{ text: "build the thing", turn: 1, index: 0 }],
    corrections: [{ text: "no, not like that — " + "y".repeat(50), turn: 2, index: 5 }],
    errorLedger: [],
    workingCommands: [],
    hexConstants: [],
    files: ["src/a.ts"],
  };
  const input = { sessionId: "s1", sessionFile: "/tmp/my sessions/s1.jsonl", facts, artifacts, now: "2026-01-02T03:04:05.000Z" };

  it("lists only unresolved errors, decisions in session order, fences that hold backticks, quoted paths", () => {
    const markdown = buildHandoff(input);
    expect(markdown).toContain("error TS2304: Cannot find name 'x'.");
    expect(markdown).not.toContain("FAIL old test");
    expect(markdown).not.toContain("deprecated flag");
    const correction = markdown.indexOf("### correction, turn 2 (#5)");
    const preference = markdown.indexOf("### preference, turn 2 (#7)");
    expect(correction).toBeGreaterThan(0);
    expect(preference).toBeGreaterThan(correction);
    expect(markdown).toContain("````text\nalso add ```fenced``` docs\n````");
    // A statement already listed under another kind (#7) is not repeated; one said nowhere else is.
    expect(markdown.split("also add ```fenced``` docs").length).toBe(2);
    expect(markdown.indexOf("### statement, turn 3 (#11)")).toBeGreaterThan(preference);
    expect(markdown).toContain("the staging box is db-2 on port 6543");
    expect(markdown).toContain("`context-fold recall '/tmp/my sessions/s1.jsonl' --expand 10`");
    expect(markdown).toContain("Folded spans: none in the seed index.");
    expect(buildHandoff(input)).toBe(markdown);
  });

  it("lists the most recent commits and says how many earlier ones it left out", () => {
    const commits = Array.from({ length: 13 }, (_, i) => ({ hash: `abc${String(1000 + i)}`, subject: `change ${String(i)}`, kind: "commit" as const, turn: 2, index: 20 + i }));
    const markdown = buildHandoff({ ...input, facts: { ...facts, commits } });
    expect(markdown).toContain("abc1012");
    expect(markdown).not.toContain("abc1002");
    expect(markdown).toContain("- … and 3 earlier commits (recall: `context-fold facts '/tmp/my sessions/s1.jsonl'`)");
  });

  it("clips an over-long decision with a recall pointer; no goal and no request says so", () => {
    const clipped = buildHandoff({ ...input, verbatimMax: 20 });
    expect(clipped).toContain("… (clipped; recall #5");
    expect(clipped).not.toContain("y".repeat(50));
    const empty = buildHandoff({ ...input, facts: { ...facts, goal: null }, artifacts: { ...artifacts, initialPrompts: [] } });
    expect(empty).toContain("No goal was given and the session has no user request.");
  });
});

describe("adversarial input", { timeout: LINEAR_TIME_MS }, () => {
  it("1 MB runs of one character (spaces, backticks, newlines) in every quoted field", () => {
    const facts: SessionFacts = {
      goal: null,
      scopeChanges: [],
      preferences: [{ text: "`".repeat(1 << 20), turn: 1, index: 1 }],
      statements: [{ text: "`".repeat(1 << 20), turn: 1, index: 3, count: 1 }],
      files: [{ path: "`".repeat(1 << 20), status: "modified", symbols: [], firstIndex: 1, lastIndex: 1 }],
      typeCatalog: [],
      commits: [],
      outstanding: [{ severity: "ERROR", resolved: false, text: " ".repeat(1 << 20), source: "tool", label: "bash", command: "\n".repeat(1 << 20), turn: 1, index: 2 }],
      turns: [{ turn: 1, index: 0, oneLine: `${" ".repeat(1 << 20)}x` }],
      status: { focus: `${" ".repeat(1 << 20)}\n x`, focusIndex: 0, nextSteps: [" \n ".repeat(1 << 18)] },
      anchors: { commits: [], errorIds: [], keyFiles: [] },
      range: { first: 0, last: 2 },
    };
    const artifacts: DurableArtifacts = { initialPrompts: [{ text: "`".repeat(1 << 20), turn: 1, index: 0 }], corrections: [], errorLedger: [], workingCommands: [], hexConstants: [], files: [] };
    const markdown = buildHandoff({ sessionId: "s", sessionFile: "/s.jsonl", facts, artifacts, now: "2026-01-01T00:00:00.000Z", verbatimMax: 1 << 21 });
    expect(markdown).toContain(`${"`".repeat((1 << 20) + 1)}text\n${"`".repeat(1 << 20)}\n`);
    expect(markdown).toContain("- Focus: x (#0)");
  });
});

describe("writeHandoff", () => {
  it("writes handoff-<id>.md beside the seed index atomically and replaces an existing file whole", async () => {
    const { file, session, records } = await generated(13);
    const { markdown } = sessionHandoff(session, { seedRecords: records });
    const target = handoffPath(file, session.header.id);
    await writeFile(target, "x".repeat(markdown.length * 3));
    const written = await writeHandoff(file, session.header.id, markdown);
    expect(written).toEqual({ path: target, bytes: Buffer.byteLength(markdown) });
    expect(dirname(target)).toBe(dirname(seedIndexPath(file, session.header.id)));
    expect(await readFile(target, "utf8")).toBe(markdown);
    expect((await readdir(dirname(target))).sort()).toEqual([`handoff-${session.header.id}.md`, "seed-index.jsonl"]);
    const out = join(tempDir("handoff-out-"), "deep", "h.md");
    expect(await writeHandoff(file, session.header.id, "short\n", { out })).toEqual({ path: out, bytes: 6 });
    expect(await readFile(out, "utf8")).toBe("short\n");
    await expect(writeHandoff(file, session.header.id, "x", { out: dirname(out) })).rejects.toMatchObject({ code: "HANDOFF_WRITE" });
    expect(await readdir(dirname(out))).toEqual(["h.md"]);
  });
});

describe("concurrent writers", () => {
  it("twenty overlapping writes leave one of the texts whole and no temp file", async () => {
    const dir = tempDir("handoff-race-");
    const target = join(dir, "h.md");
    const texts = Array.from({ length: 20 }, (_, i) => `${String(i)}\n${String.fromCharCode(97 + i).repeat(200_000 + i)}\n`);
    await Promise.all(texts.map((t) => writeHandoff("/unused/s.jsonl", "s", t, { out: target })));
    expect(texts).toContain(await readFile(target, "utf8"));
    expect(await readdir(dir)).toEqual(["h.md"]);
  });
});

describeShared("handoff of real session fixtures", () => {
  it("every fixture: the founding request verbatim, block pointers resolve, deterministic", async () => {
    const dir = tempDir("handoff-fixtures-");
    for (const fixture of sessionFixtures()) {
      const copy = join(dir, fixture.split("/").pop() ?? "s.jsonl");
      await cp(fixture, copy);
      const session = await readSession(copy);
      const { doc, markdown } = sessionHandoff(session, { now: "2026-01-01T00:00:00.000Z" });
      for (const p of doc.foundingRequests) expect(markdown).toContain(p.text);
      if (doc.goal.source === "founding-request") expect(markdown).toContain(doc.goal.text);
      expect(doc.goal.text.trim()).not.toMatch(/^\/\S*$/); // a lone slash command is never the goal
      checkPointers(session, doc, [], markdown);
      expect(sessionHandoff(await readSession(copy), { now: "2026-01-01T00:00:00.000Z" }).markdown).toBe(markdown);
    }
  });
});
