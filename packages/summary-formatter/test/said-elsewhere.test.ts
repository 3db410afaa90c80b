// What the user said outside the blocks of Pi's branch survives compaction: messages (and files written)
// on the part of the branch a damaged line cut off, and a prompt kept only by an extension's custom entry (the assistant answered it, but no
// user message was written). Neither is taken where the structure says otherwise: a message on an
// abandoned branch, a custom field that does not repeat the user's messages, a field seen paired once.
// Sessions are written by Pi's own SessionManager; the damage is the masking kind seen in real files (a
// `\n` escape whose letter was overwritten, leaving a lone backslash).
import { readFileSync, writeFileSync } from "node:fs";
import { createSaidAlong, cutOffBlocks, type SaidCarry, saidElsewhere, saidElsewhereOn } from "@context-fold/extractors";
import { readSession, readSessionShape, type Session, streamLineage, updateSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { compactSession, compactSessionStreamed, compactWithFacts, type CutPlan, prepareCutParts, SummaryParts } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { factsBefore, piWriter, type PiWriter } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";
const BEFORE_BREAK = "The billing service lives in ~/work/ledgerly and its staging database is ledger-stage-3 on port 6543.";
const FOUNDING = "Add pagination to the items endpoint and keep the response shape unchanged.";

/** A statement before a tool result whose text has `\n@router`; the rest of the session after it. */
function sessionWithStatementBeforeResult(dir: string): PiWriter {
  const w = piWriter(dir);
  w.user(BEFORE_BREAK);
  w.assistant([{ type: "toolCall", id: "w0", name: "write", arguments: { path: "scripts/seed_staging.py", content: "print('seed')\n" } }]);
  w.result("w0", "write", "Successfully wrote 14 bytes to scripts/seed_staging.py");
  w.assistant([{ type: "toolCall", id: "r1", name: "read", arguments: { path: "app/items.py" } }]);
  w.result("r1", "read", "from fastapi import APIRouter\nrouter = APIRouter()\n@router.get('/items')\ndef items():\n    return []\n");
  w.assistant([{ type: "text", text: "The router has one endpoint." }]);
  w.user(FOUNDING);
  w.assistant([{ type: "toolCall", id: "e1", name: "edit", arguments: { path: "app/items.py", oldText: "return []", newText: "return page(items, 50)" } }]);
  w.result("e1", "edit", "Successfully replaced text in app/items.py.");
  for (let k = 0; k < 6; k++) {
    w.user(`Run the pagination check number ${String(k)} against the staging copy.`);
    w.assistant([{ type: "text", text: `Check ${String(k)} passed.` }]);
  }
  return w;
}

/** Breaks the line holding `needle` the way an e-mail masker does: `\n@router.get` becomes `\***@***.***`. */
function maskLine(file: string, needle: string): void {
  const lines = readFileSync(file, "utf8").split("\n");
  const at = lines.findIndex((l) => l.includes(needle));
  expect(at).toBeGreaterThan(0);
  lines[at] = (lines[at] ?? "").replace("n@router.get", "***@***.***");
  writeFileSync(file, lines.join("\n"));
}

function keeps(r: { summary: string; digest: string }, text: string): boolean {
  return `${r.summary}\n${r.digest}`.includes(text);
}

describe("user messages a damaged line cuts off Pi's branch", () => {
  it("are statements of the summary, with their #N", async () => {
    const w = sessionWithStatementBeforeResult(tempDir());
    maskLine(w.file, "n@router.get");
    const session = await readSession(w.file);
    // Pi's branch starts after the break: the statement is not on it.
    expect(session.damaged.some((d) => d.kind === "malformed")).toBe(true);
    const first = session.blocks.find((b) => b.kind === "user");
    expect(first?.text).toBe(BEFORE_BREAK);
    expect(session.lineageIds.has(first?.entryId ?? "")).toBe(false);
    // The recovered view reaches them across the damaged line: the cut-off part of the branch.
    const cut = cutOffBlocks(session);
    expect(cut[0]).toEqual(first);
    expect(cut.every((b) => !session.lineageIds.has(b.entryId))).toBe(true);
    expect(saidElsewhere(session)).toEqual([]);
    const r = compactSession(session, { now: NOW, keepTail: 2 });
    expect(keeps(r, BEFORE_BREAK)).toBe(true);
    expect(r.summary).toContain(`${BEFORE_BREAK} (#${String(first?.index)})`);
    // What was written there is named as well.
    expect(r.summary).toContain("scripts/seed_staging.py");
  });

  it("without the damage nothing is cut off, and the statement is kept as before", async () => {
    const w = sessionWithStatementBeforeResult(tempDir());
    const session = await readSession(w.file);
    expect(cutOffBlocks(session)).toEqual([]);
    expect(keeps(compactSession(session, { now: NOW, keepTail: 2 }), BEFORE_BREAK)).toBe(true);
  });

  it("a message on a branch the user left is not taken", async () => {
    const w = piWriter(tempDir());
    w.user(FOUNDING);
    w.assistant([{ type: "text", text: "Which page size?" }]);
    const fork = w.sm.getLeafId() ?? "";
    const abandoned = "Use cursor pagination keyed on the created_at column of the orders table.";
    w.user(abandoned);
    w.assistant([{ type: "text", text: "Cursor pagination it is." }]);
    w.sm.branch(fork);
    w.user("Fifty items per page, offset based.");
    w.assistant([{ type: "text", text: "Offset pagination with 50 per page." }]);
    w.user("Now add a test for the last page.");
    w.assistant([{ type: "text", text: "Added." }]);
    const session = await readSession(w.file);
    expect(cutOffBlocks(session)).toEqual([]);
    expect(keeps(compactSession(session, { now: NOW, keepTail: 1 }), abandoned)).toBe(false);
  });
});

const TRACKER = "prompt-router";
const route = (prompt: string): unknown => ({ version: 2, route: "direct", audit: { reason: "low risk", input: { preview: prompt } } });

/** Two prompts recorded by a tracker entry then sent; a third recorded, a compaction, and its answer with no user message. */
function sessionWithLostPrompt(dir: string, lost: string, data: (prompt: string) => unknown = route): PiWriter {
  const w = piWriter(dir);
  const said = ["Open the release checklist for version 4.2 and tick the changelog item.", "Bump the version   in package.json\n\nand tag it v4.2.0 once the build is green."];
  w.sm.appendCustomEntry(TRACKER, data(said[0] ?? ""));
  w.user(said[0] ?? "");
  w.assistant([{ type: "toolCall", id: "b1", name: "bash", arguments: { command: "cat RELEASE.md" } }]);
  w.result("b1", "bash", "- [ ] changelog\n- [ ] version bump");
  w.assistant([{ type: "text", text: "Checklist opened." }]);
  // The preview collapses whitespace, as a one-line preview does.
  w.sm.appendCustomEntry(TRACKER, data(said[1]?.replace(/\s+/g, " ") ?? ""));
  w.user(said[1] ?? "");
  w.assistant([{ type: "toolCall", id: "b2", name: "bash", arguments: { command: "npm version 4.2.0" } }]);
  w.result("b2", "bash", "v4.2.0");
  w.assistant([{ type: "text", text: "Tagged v4.2.0." }]);
  w.sm.appendCustomEntry(TRACKER, data(lost));
  const leaf = w.sm.getLeafId();
  w.sm.appendCompaction("## Goal\nRelease 4.2.\n## Progress\n- tagged v4.2.0", leaf, 5000);
  w.assistant([{ type: "text", text: "Opening an issue for the screenshots of the release notes." }]);
  w.assistant([{ type: "toolCall", id: "b3", name: "bash", arguments: { command: "gh issue create --title 'release notes screenshots'" } }]);
  w.result("b3", "bash", "https://example.test/issues/9");
  return w;
}

describe("a prompt kept only by an extension's custom entry", () => {
  const LOST = "File an issue: the release notes need screenshots of the new settings page before Friday.";

  it("is a statement when that entry's field repeated every user message it preceded", async () => {
    const w = sessionWithLostPrompt(tempDir(), LOST);
    const session = await readSession(w.file);
    const said = saidElsewhere(session);
    expect(said.map((s) => s.text)).toEqual([LOST]);
    // Its pointer is the answer's first block: what recall opens to see what was done with it.
    const answer = session.blocks.find((b) => b.text.startsWith("Opening an issue"));
    expect(said[0]?.index).toBe(answer?.index);
    expect(keeps(compactSession(session, { now: NOW, keepTail: 1 }), LOST)).toBe(true);
  });

  it("is found by the streamed compaction too, which never holds the session (same output as the whole read)", async () => {
    const w = sessionWithLostPrompt(tempDir(), LOST);
    const whole = compactSession(await readSession(w.file), { now: NOW, keepTail: 1 });
    const streamed = await compactSessionStreamed(await readSessionShape(w.file, { blockBytes: true }), { now: NOW, keepTail: 1 });
    expect(keeps(streamed, LOST)).toBe(true);
    expect(streamed).toEqual(whole);
  });

  it("a streamed compaction of a branch a damaged line cut short keeps what the cut-off part said", async () => {
    const w = sessionWithStatementBeforeResult(tempDir());
    maskLine(w.file, "n@router.get");
    const whole = compactSession(await readSession(w.file), { now: NOW, keepTail: 2 });
    const streamed = await compactSessionStreamed(await readSessionShape(w.file, { blockBytes: true }), { now: NOW, keepTail: 2 });
    expect(keeps(streamed, BEFORE_BREAK)).toBe(true);
    expect(streamed).toEqual(whole);
  });

  it("is not taken from a field that does not repeat the user's messages", async () => {
    const w = sessionWithLostPrompt(tempDir(), LOST, (prompt) => ({ route: "direct", note: prompt.length > 60 ? "long prompt" : "short prompt", summary: LOST }));
    const session = await readSession(w.file);
    expect(saidElsewhere(session)).toEqual([]);
  });

  it("is not taken when the field was seen paired with a user message only once", async () => {
    const w = piWriter(tempDir());
    w.sm.appendCustomEntry(TRACKER, route("Open the release checklist for version 4.2."));
    w.user("Open the release checklist for version 4.2.");
    w.assistant([{ type: "text", text: "Opened." }]);
    w.sm.appendCustomEntry(TRACKER, route(LOST));
    w.assistant([{ type: "text", text: "Opening an issue." }]);
    const session = await readSession(w.file);
    expect(saidElsewhere(session)).toEqual([]);
  });

  it("the streamed collector settles each custom entry at the next message and gives the whole read's statements", async () => {
    const w = sessionWithLostPrompt(tempDir(), LOST);
    // Two custom entries waiting for one answer (the second is another extension's), and one no message follows.
    w.sm.appendCustomEntry("other-extension", { note: "checkpoint before the screenshots" });
    w.sm.appendCustomEntry(TRACKER, route(`${LOST} Again.`));
    w.assistant([{ type: "text", text: "The issue is filed." }]);
    w.sm.appendCustomEntry(TRACKER, route("Recorded after the last message."));
    const session = await readSession(w.file);
    const whole = saidElsewhere(session);
    expect(whole.map((s) => s.text)).toEqual([LOST, `${LOST} Again.`]);
    const along = createSaidAlong();
    for await (const { entry, blocks } of streamLineage(session)) along.add(entry, blocks);
    expect(along.statements()).toEqual(whole);
  });

  it("read on turn by turn (`saidElsewhereOn` with the last call's carry) gives the whole read's statements at every step", async () => {
    const w = piWriter(tempDir());
    const said = ["Open the release checklist for version 4.2 and tick the changelog item.", "Bump the version in package.json and tag it v4.2.0 once the build is green."];
    // Each step appends entries; custom entries wait across steps for the message that settles them.
    const steps: (() => void)[] = [
      () => {
        w.sm.appendCustomEntry(TRACKER, route(said[0] ?? ""));
        w.user(said[0] ?? "");
        w.assistant([{ type: "text", text: "Checklist opened." }]);
      },
      () => w.sm.appendCustomEntry(TRACKER, route(said[1] ?? "")),
      () => {
        w.user(said[1] ?? "");
        w.assistant([{ type: "text", text: "Tagged v4.2.0." }]);
      },
      () => w.sm.appendCustomEntry(TRACKER, route(LOST)),
      () => w.sm.appendCustomEntry("other-extension", { note: "checkpoint before the screenshots" }),
      () => w.assistant([{ type: "text", text: "Opening an issue for the screenshots of the release notes." }]),
      () => w.sm.appendCustomEntry(TRACKER, route(`${LOST} Again.`)),
      () => w.assistant([{ type: "text", text: "The issue is filed." }]),
    ];
    let session: Session | undefined;
    let carry: SaidCarry | undefined;
    const seen: string[][] = [];
    for (const step of steps) {
      step();
      session = session === undefined ? await readSession(w.file) : await updateSession(session);
      const on = saidElsewhereOn(session, carry);
      // Read on, not read again: the carry's last entry is still the branch's at its place.
      if (carry !== undefined) expect(on.carry.pairing).toBe(carry.pairing);
      carry = on.carry;
      const whole = saidElsewhere(await readSession(w.file));
      expect(on.said).toEqual(whole);
      seen.push(on.said.map((s) => s.text));
    }
    // The prompts became statements only once their answers came, each at its step.
    expect(seen.at(-1)).toEqual([LOST, `${LOST} Again.`]);
    expect(seen.at(-3)).toEqual([LOST]);
    expect(seen.at(-4)).toEqual([]);
  });

  it("a carry from another branch is not read on: the branch is read whole", async () => {
    const w = sessionWithLostPrompt(tempDir(), LOST);
    const before = await readSession(w.file);
    const { carry } = saidElsewhereOn(before);
    expect(saidElsewhereOn(before, carry).said.map((s) => s.text)).toEqual([LOST]);
    // Back to before the lost prompt's custom entry, and on from there without it.
    const first = before.lineage.find((e) => e.type === "custom");
    w.sm.branch(first?.id ?? "");
    for (let k = 0; k < 8; k++) {
      w.user(`Ship part ${String(k)} of it.`);
      w.assistant([{ type: "text", text: `Part ${String(k)} shipped.` }]);
    }
    const after = await readSession(w.file);
    // Longer than what the carry read: only its last entry tells the branches apart.
    expect(after.lineage.length).toBeGreaterThan(carry.read);
    const on = saidElsewhereOn(after, carry);
    expect(on.carry.pairing).not.toBe(carry.pairing);
    expect(on.said).toEqual(saidElsewhere(after));
    expect(on.said).toEqual([]);
  });

  it("prepared at each turn's end as the session grows (read on from the last prepare), the compaction equals the one from scratch", async () => {
    const w = sessionWithLostPrompt(tempDir(), LOST);
    const parts = new SummaryParts();
    let session = await readSession(w.file);
    const facts = (plan: CutPlan): ReturnType<typeof factsBefore> => factsBefore(plan, session.header.cwd);
    const steps: (() => void)[] = [
      () => w.sm.appendCustomEntry(TRACKER, route("Check the screenshots are in the notes.")),
      () => w.user("Check the screenshots are in the notes."),
      () => w.assistant([{ type: "text", text: "They are." }]),
      () => w.sm.appendCustomEntry(TRACKER, route("Attach the notes to the release.")),
      () => w.assistant([{ type: "text", text: "Attached the notes." }]),
    ];
    const kept: boolean[] = [];
    for (let step = 0; step <= steps.length; step++) {
      const carried = parts.saidCarry?.pairing;
      prepareCutParts(parts, session);
      // Read on from the last prepare's carry, not read whole again.
      if (step > 0) expect(parts.saidCarry?.pairing).toBe(carried);
      const scratch = compactSession(session, { now: NOW, keepTail: 1 });
      expect(compactWithFacts(session, facts, { now: NOW, keepTail: 1, parts })).toEqual(scratch);
      kept.push(keeps(scratch, "Attach the notes to the release."));
      steps[step]?.();
      session = await updateSession(session);
    }
    // The last prompt kept only by its custom entry became a statement once its answer came.
    expect(kept.at(-1)).toBe(true);
    expect(kept.at(-2)).toBe(false);
  });
});
