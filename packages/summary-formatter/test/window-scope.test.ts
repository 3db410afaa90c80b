// Repeated compaction with window-scope facts (each round extracts only its own window and relies on
// the merge): corrections said at the start of a window, and errors still open from older windows,
// survive every round, on generated sessions and on the real fixtures; a correction is listed once.
import { basename, join } from "node:path";
import { isCorrection } from "@context-fold/extractors";
import { type Block, readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, sessionFixtures, tempDir } from "@context-fold/test-support";
import { type CompactResult, compactSession, estimateTokens, parseSummary, type SummaryDoc } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { piWriter } from "./pi-session.js";
import { windowRounds } from "./window-rounds.js";

const norm = (s: string): string => s.replace(/\s+/g, " ").trim();

/** Is `text` (its first 100 characters, whitespace collapsed) in the summary or the digest? */
function holds(r: CompactResult, text: string): boolean {
  const needle = norm(text).slice(0, 100);
  return norm(r.summary).includes(needle) || norm(r.digest).includes(needle);
}

/** User messages after the founding request that the extractors classify as corrections. */
function correctionsIn(before: readonly Block[]): Block[] {
  const users = before.filter((b) => b.kind === "user" && b.text.trim().length >= 12 && !b.text.startsWith("/"));
  return users.slice(1).filter((b) => isCorrection(b.text));
}

/** Programs whose failure means "not found" rather than "broken" (as the eval's ground truth). */
const PROBES = new Set(["grep", "rg", "ag", "find", "ls", "test", "[", "which", "diff", "cat", "head", "tail", "wc", "cd", "echo"]);
const isProbe = (command: string): boolean =>
  command
    .replace(/\\./g, "__")
    .split(/&&|\|\||[;|]/)
    .map((p) => p.trim().split(" ")[0] ?? "")
    .every((p) => PROBES.has(p.slice(p.lastIndexOf("/") + 1)));

/** Shell commands that failed and never succeeded later on the lineage, last failing before the cut. */
function openCommands(lineage: readonly Block[], before: readonly Block[]): string[] {
  const resultOf = new Map<string, Block>();
  for (const b of lineage) if (b.kind === "toolResult" && b.toolCallId !== undefined) resultOf.set(b.toolCallId, b);
  const last = new Map<string, Block>();
  for (const b of lineage) {
    const isCall = b.kind === "toolCall" && b.toolName === "bash";
    if (!isCall && b.kind !== "bash") continue;
    const command = typeof b.args?.["command"] === "string" ? norm(b.args["command"]) : "";
    if (command === "" || isProbe(command)) continue;
    const failed = isCall ? b.toolCallId !== undefined && resultOf.get(b.toolCallId)?.isError === true : b.isError === true;
    if (failed) last.set(command, b);
    else last.delete(command);
  }
  const cut = before[before.length - 1]?.index ?? -1;
  return [...last.entries()].filter(([, b]) => b.index <= cut).map(([c]) => c);
}

function counted(doc: SummaryDoc, omission: "corrections" | "outstanding"): number {
  return (omission === "corrections" ? doc.correctionsOmitted : doc.outstandingOmitted)?.count ?? 0;
}

/** No correction is listed a second time as a preference. */
function listedOnce(doc: SummaryDoc): void {
  for (const p of doc.preferences) {
    const echo = doc.corrections.find((c) => c.index === p.index && norm(c.text).includes(norm(p.text)));
    expect(echo, `preference (#${String(p.index)}) repeats a correction: ${p.text}`).toBeUndefined();
  }
}

describe("window-scope repeated compaction on generated sessions", () => {
  // Sessions where a window opens with a correction ("No, actually …") under ten evenly spaced cuts.
  it.each([
    [1, 120],
    [3, 80],
  ])("keeps window-start corrections and older open errors (seed %i, %i turns)", async (seed, turns) => {
    const file = join(tempDir(), "session.jsonl");
    const manifest = await generateSession(file, { seed, turns });
    const session = await readSession(file);
    const { final, before, compacted } = windowRounds(session, 10);
    expect(compacted).toBeGreaterThanOrEqual(8);
    const doc = parseSummary(final.summary);
    expect(estimateTokens(final.summary)).toBeLessThanOrEqual(4000);
    expect(doc.goal?.text).toBe(manifest.foundingRequest);
    expect(final.digest).toContain(`Initial prompt(s), verbatim:\n- ${manifest.foundingRequest.split("\n")[0] ?? ""}`);
    const corrections = correctionsIn(before);
    expect(corrections.length).toBeGreaterThanOrEqual(5);
    const lost = corrections.filter((c) => !holds(final, c.text));
    expect(lost.length, lost.map((c) => `#${String(c.index)} ${c.text}`).join("\n")).toBeLessThanOrEqual(counted(doc, "corrections"));
    const lineage = session.blocks.filter((b) => session.lineage.some((e) => e.id === b.entryId));
    const absent = openCommands(lineage, before).filter((c) => !holds(final, c.slice(0, 48)));
    expect(absent.length, absent.join("\n")).toBeLessThanOrEqual(counted(doc, "outstanding"));
    listedOnce(doc);
  });
});

describe("a correction opening a window (Pi-written session, two compactions)", () => {
  const FOUNDING = "Build the journal importer in src/importer.ts and keep its public API stable.";
  const FIX = "No, actually never use a Map there; a plain array is clearer.";

  it("is kept as a correction, listed once (not also as a preference), the founding request stays the goal", async () => {
    const w = piWriter(tempDir());
    const edit = (id: string, path: string): void => {
      w.assistant([{ type: "toolCall", id, name: "edit", arguments: { path, oldText: "a", newText: "b" } }]);
      w.result(id, "edit", `Successfully replaced text in ${path}.`);
    };
    w.user(FOUNDING);
    edit("e1", "src/importer.ts");
    w.assistant([{ type: "text", text: "Done with the first pass." }]);
    w.user("Now add a CSV reader next to it.");
    edit("e2", "src/csv.ts");
    w.user(FIX);
    edit("e3", "src/importer.ts");
    // First compaction: the correction's turn is the kept tail, so the next window opens with it.
    const first = compactSession(await readSession(w.file));
    expect((await readSession(w.file)).byId.get(first.firstKeptEntryId)?.type).toBe("message");
    w.sm.appendCompaction(first.summary, first.firstKeptEntryId, first.tokensBefore, undefined, true);
    w.assistant([{ type: "text", text: "Switched to an array." }]);
    w.user("Also run the tests.");
    w.assistant([{ type: "text", text: "Running them." }]);
    const session = await readSession(w.file);
    const fix = session.blocks.find((b) => b.kind === "user" && b.text === FIX);
    expect(parseSummary(first.summary).corrections).toEqual([]);
    for (const scope of ["window", "lineage"] as const) {
      const r = compactSession(session, { scope });
      // This compaction's window opens with the correction (facts from it alone, for "window").
      expect(r.stats.range?.from, scope).toBe(fix?.index);
      const doc = parseSummary(r.summary);
      expect(doc.goal?.text, scope).toBe(FOUNDING);
      expect(doc.corrections, scope).toEqual([{ text: FIX, index: fix?.index }]);
      expect(doc.preferences.filter((p) => p.index === fix?.index), scope).toEqual([]);
      expect(doc.scopeChanges.some((c) => c.index === fix?.index), scope).toBe(false);
      // The digest re-injects the founding request as the initial prompt and the correction as one.
      expect(r.digest, scope).toContain(`Initial prompt(s), verbatim:\n- ${FOUNDING} (#0)\nCorrections, verbatim:\n- ${FIX} (#${String(fix?.index)})\n`);
      expect(r.digest.trimEnd().split("\n").pop(), scope).toMatch(/^preserved verbatim: 1 initial prompt\(s\), 1 corrections/);
    }
  });
});

describeShared("window-scope repeated compaction on the real session fixtures", () => {
  for (const file of sessionFixtures()) {
    it(`keeps corrections and open errors of ${basename(file)} through ten rounds`, async () => {
      const session = await readSession(file);
      const { final, before } = windowRounds(session, 10);
      const doc = parseSummary(final.summary);
      expect(estimateTokens(final.summary)).toBeLessThanOrEqual(4000);
      const lost = correctionsIn(before).filter((c) => !holds(final, c.text));
      expect(lost.length, lost.map((c) => `#${String(c.index)} ${c.text.slice(0, 120)}`).join("\n")).toBeLessThanOrEqual(counted(doc, "corrections"));
      const lineage = session.blocks.filter((b) => session.lineage.some((e) => e.id === b.entryId));
      const absent = openCommands(lineage, before).filter((c) => !holds(final, c.slice(0, 48)));
      expect(absent.length, absent.join("\n")).toBeLessThanOrEqual(counted(doc, "outstanding"));
      listedOnce(doc);
      // Same cut compacted once from the whole lineage: the window chain keeps the same open errors.
      expect(compactSession(session).firstKeptEntryId).toBe(final.firstKeptEntryId);
    });
  }

  it("keeps the correction said at a window start in pi-mono__large-session (no, dimGray …)", async () => {
    const file = sessionFixtures().find((f) => basename(f) === "pi-mono__large-session.jsonl") ?? "";
    const { final } = windowRounds(await readSession(file), 10);
    const doc = parseSummary(final.summary);
    expect(doc.corrections.some((c) => c.text.startsWith("no, dimGray should be that, no need for linkGray,"))).toBe(true);
  });
});
