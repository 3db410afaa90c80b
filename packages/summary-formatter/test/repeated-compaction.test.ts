// Ten compactions in a row on a growing session: compact, record the compaction through Pi's
// SessionManager, append freshly generated turns, compact again with the previous summary. Nothing
// that matters is lost: founding request verbatim, every commit and modified file named or counted,
// every still-open error present, and the summary within budget every time.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession, type Manifest } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { compactSession, estimateTokens, parseSummary, type SummaryDoc } from "@context-fold/summary-formatter";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describe, expect, it } from "vitest";

const BUDGET = 4000;
const plain = { branches: false, compactions: 0, contextEdits: false, unknownEntries: false } as const;

/** The messages on the lineage of a generated session, in order. */
function lineageMessages(file: string): Record<string, unknown>[] {
  const entries = readFileSync(file, "utf8")
    .split("\n")
    .slice(1)
    .filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as { id: string; parentId: string | null; type: string; message?: Record<string, unknown> });
  const byId = new Map(entries.map((e) => [e.id, e]));
  const chain: typeof entries = [];
  for (let e = entries[entries.length - 1]; e !== undefined; e = e.parentId === null ? undefined : byId.get(e.parentId)) chain.push(e);
  return chain
    .reverse()
    .filter((e) => e.type === "message" && e.message !== undefined)
    .map((e) => e.message ?? {});
}

function namedOrCounted(doc: SummaryDoc, text: string, values: readonly string[], what: string): void {
  const missing = values.filter((v) => !text.includes(v));
  const counted = [...doc.filesOmitted, doc.commitsOmitted].filter((o) => o !== null && o.what === what).reduce((n, o) => n + (o?.count ?? 0), 0);
  expect(missing.length, `${what}: ${missing.join(", ")}`).toBeLessThanOrEqual(counted);
}

describe("repeated compaction", () => {
  it.each(["lineage", "window"] as const)("keeps what matters through ten compactions (facts from the %s)", async (scope) => {
    const dir = tempDir();
    const file = join(dir, "session.jsonl");
    const base = await generateSession(file, { seed: 11, turns: 20, ...plain });
    const manifests: Manifest[] = [base];
    let previous: string | undefined;
    let last = "";
    for (let round = 1; round <= 10; round++) {
      const result = compactSession(await readSession(file), previous === undefined ? { scope } : { previous, scope });
      expect(estimateTokens(result.summary), `round ${String(round)}`).toBeLessThanOrEqual(BUDGET);
      // The sizes are counted from the sections' measured bytes, never from the text: they must be the text's.
      expect(result.stats.summary.estimatedTokens).toBe(estimateTokens(result.summary));
      expect(result.summary).toContain(`→ summary ~${String(estimateTokens(result.summary.slice(0, result.summary.lastIndexOf("\n\n---\n"))))} tok`);
      expect(parseSummary(result.summary).goal?.text).toBe(base.foundingRequest);
      previous = result.summary;
      last = result.summary;
      // Pi records the compaction; the session goes on with generated turns.
      const sm = SessionManager.open(file, dir);
      sm.appendCompaction(result.summary, result.firstKeptEntryId, result.tokensBefore, undefined, true);
      const chunkFile = join(dir, `chunk-${String(round)}.jsonl`);
      manifests.push(await generateSession(chunkFile, { seed: 100 + round, turns: 8, ...plain }));
      for (const message of lineageMessages(chunkFile)) sm.appendMessage(message as never);
    }
    const final = compactSession(await readSession(file), { previous: last, scope });
    const doc = parseSummary(final.summary);
    expect(estimateTokens(final.summary)).toBeLessThanOrEqual(BUDGET);
    expect(doc.goal?.text).toBe(base.foundingRequest);
    const cut = (await readSession(file)).byId.get(final.firstKeptEntryId);
    expect(cut).toBeDefined();
    // Commits and modified files of everything summarized (the last chunk's tail may still be kept).
    const summarized = manifests.slice(0, -1);
    namedOrCounted(doc, final.summary, [...new Set(summarized.flatMap((m) => m.commits.map((c) => c.hash)))], "more commits");
    namedOrCounted(doc, final.summary, [...new Set(summarized.flatMap((m) => [...m.modifiedFiles, ...m.createdFiles]))], "more modified files");
    // Lineage-wide facts re-derive the open errors; window-only facts carry them through the merge.
    // Every error a chunk left open is present (open, or resolved by a later chunk's edit), or counted.
    const open = [...new Set(summarized.flatMap((m) => m.errorsOpenAtEnd))];
    expect(open.length).toBeGreaterThanOrEqual(10);
    const absent = open.filter((line) => !final.summary.includes(line.slice(0, 60)));
    expect(absent.length, absent.join("\n")).toBeLessThanOrEqual(doc.outstandingOmitted?.count ?? 0);
    expect(summarized.flatMap((m) => m.commits).length).toBeGreaterThanOrEqual(5);
  });
});
