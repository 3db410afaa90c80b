// The human view of `context-fold eval`: one table row per session and compaction chain, then what
// was lost (so a regression names its item), the floors, and per-step times.
import { basename } from "node:path";
import type { ItemTally } from "./score-retention.js";
import type { CompactionEval, SessionEval } from "./evaluate-session.js";
import type { FloorCheck, ItemMiss, QuestionScore, Share, TruthScore } from "./score-truth.js";

const MISSING_SHOWN = 5;

function nc(t: ItemTally): string {
  return t.counted > 0 ? `${String(t.named)}+${String(t.counted)}/${String(t.n)}` : `${String(t.named)}/${String(t.n)}`;
}

function row(label: string, run: string, c: CompactionEval, recall: string): string[] {
  const r = c.retention;
  return [
    label,
    run,
    r.foundingRequest.expected ? (r.foundingRequest.verbatim ? "yes" : "NO") : "-",
    nc(r.corrections),
    nc(r.modifiedFiles),
    nc(r.commits),
    nc(r.unresolvedErrors) + (r.unresolvedErrors.inTail > 0 ? ` (+${String(r.unresolvedErrors.inTail)} tail)` : ""),
    `${String(r.needlesInSummary.named)}/${String(r.needlesInSummary.n)}`,
    recall,
    String(c.summaryTokens),
    `${String(c.tokensBefore)}→${String(c.tokensAfter)}`,
    `${c.ratio.toFixed(1)}x`,
  ];
}

function table(rows: readonly string[][]): string {
  const widths: number[] = [];
  for (const r of rows) r.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)));
  return rows.map((r) => r.map((cell, i) => (i < 2 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0))).join("  ").trimEnd()).join("\n");
}

function missingLines(what: string, t: ItemTally): string[] {
  if (t.missing.length === 0) return [];
  const shown = t.missing.slice(0, MISSING_SHOWN).map((m) => `      - ${m}`);
  const more = t.missing.length > MISSING_SHOWN ? [`      - … and ${String(t.missing.length - MISSING_SHOWN)} more`] : [];
  return [`    ${what} lost (${String(t.missing.length)}):`, ...shown, ...more];
}

function lost(c: CompactionEval, label: string): string[] {
  const r = c.retention;
  const lines = [
    ...(r.foundingRequest.expected && !r.foundingRequest.verbatim ? ["    founding request not verbatim in the summary or digest"] : []),
    ...missingLines("corrections", r.corrections),
    ...missingLines("modified files", r.modifiedFiles),
    ...missingLines("commits", r.commits),
    ...missingLines("unresolved errors", r.unresolvedErrors),
  ];
  return lines.length === 0 ? [] : [`  ${label}:`, ...lines];
}

function pct(s: Share): string {
  return `${s.score.toFixed(2)} (${String(s.kept)}/${String(s.n)})`;
}

function floorText(name: string, c: FloorCheck): string {
  return `${name} ${c.op === ">=" ? "≥" : "≤"} ${String(c.floor)}: ${c.held ? "held" : "NOT held"}`;
}

function listed(what: string, items: readonly string[]): string[] {
  if (items.length === 0) return [];
  const shown = items.slice(0, MISSING_SHOWN).map((m) => `      - ${m}`);
  const more = items.length > MISSING_SHOWN ? [`      - … and ${String(items.length - MISSING_SHOWN)} more`] : [];
  return [`    ${what} (${String(items.length)}):`, ...shown, ...more];
}

function tailNote(m: ItemMiss): string {
  return m.inTail ? `${m.text} (in the kept tail)` : m.text;
}

function questionsLine(label: string, q: QuestionScore): string {
  return `  questions by recall, ${label}: ${pct(q)}`;
}

/** The truth-file block of one session: scores, floors, then what was missed. */
function truthLines(t: TruthScore): string[] {
  const d = t.decisions;
  const junk = [
    ...t.junk.facts.map((j) => `facts: ${j}`),
    ...(t.junk.summaryFiles ?? []).map((j) => `summary files: ${j}`),
    ...t.junk.seedIndexFiles.map((j) => `seed index files: ${j}`),
  ];
  const f = t.floors;
  return [
    `  truth ${basename(t.truthFile)}: founding request ${t.foundingRequest.expected ? (t.foundingRequest.verbatim ? "verbatim" : "NOT verbatim") : "-"}; decisions ${pct(d.all)}, high/medium ${pct(d.highMedium)}; files ${pct(t.modifiedFiles)}; junk ${String(t.junk.count)}${t.junk.summaryFiles === null ? " (summary file section unreadable)" : ""}; commits ${pct(t.commits)}; open errors ${pct(t.openErrors)}`,
    questionsLine("question words", t.questionsByQuestion) + `; answer words ${pct(t.questionsByAnswer)}`,
    `  truth floors: ${[
      floorText("decisions", f.decisions),
      floorText("files", f.modifiedFiles),
      floorText("junk", f.junk),
      floorText("commits", f.commits),
      floorText("open errors", f.openErrors),
      `founding request verbatim: ${f.foundingRequest.held ? "held" : "NOT held"}`,
    ].join(", ")}`,
    ...listed(
      "decisions lost",
      d.missing.map((m) => `[${m.importance}] ${m.line === null ? (m.entryId ?? "?") : `line ${String(m.line)}`}: key "${m.key}" lacks ${m.missingWords.map((w) => `"${w}"`).join(", ")}${m.inTail ? " (in the kept tail)" : ""}`),
    ),
    ...listed("modified files not named", t.modifiedFiles.missing),
    ...listed("junk listed as files", junk),
    ...listed("commits not named", t.commits.missing.map(tailNote)),
    ...listed("open errors not named", t.openErrors.missing.map(tailNote)),
    ...listed(
      "questions not answered by recall",
      t.questionsByQuestion.results.filter((r) => !r.found).map((r) => `${r.question} [query: ${r.query}]`),
    ),
  ];
}

export function renderEval(results: readonly SessionEval[], skipped: readonly { file: string; reason: string }[], truthUnused: readonly string[] = []): string {
  const header = ["session", "run", "goal", "corrections", "files", "commits", "errors", "needles@summary", "needles@recall≤2", "summary tok", "tokens before→after", "ratio"];
  const rows: string[][] = [header];
  for (const e of results) {
    const spans = e.needlesViaSpanRecall;
    const recall =
      `${String(e.needlesViaRecall.found)}/${String(e.needlesViaRecall.n)}` +
      ` (words ${String(e.needlesViaWords.found)}/${String(e.needlesViaWords.n)})` +
      (spans === null ? "" : ` (spans ${String(spans.found)}/${String(spans.n)})`);
    rows.push(row(basename(e.file), "1 compaction", e.single, recall));
    if (e.repeated !== null) rows.push(row("", `after ${String(e.repeated.rounds.length)} rounds (${e.repeated.roundFacts})`, e.repeated.final, recall));
  }
  const out = [
    table(rows),
    "",
    "k/n = named in the summary or digest; a+b/n = a named, b counted by a \"… and N more (recall: …)\" line. needles@recall≤2: search for the whole value + expand, text verified against the ledger; words: the same searching the needle's three rarest words; spans: span recall by anchor through the seed index. errors (+k tail): open errors that first show in the kept tail.",
  ];
  for (const e of results) {
    const f = e.floors;
    const t = e.times;
    out.push(
      "",
      `${basename(e.file)} (${String(e.entries)} entries, ${String(e.blocks)} blocks, ${String(e.single.windowBlocks)} summarized; ${String(e.needles)} ${e.needleSource} needles)`,
      `  floors: founding request ${f.foundingRequest ? "ok" : "FAILED"}, commits named+counted ${f.commits ? "ok" : "FAILED"}, needles via recall ${f.needlesViaRecall ? "ok" : "FAILED"}` +
        (f.truth === null ? "" : `, truth ${f.truth ? "ok" : "FAILED"}`),
      `  time: compact ${t.compactMs.toFixed(1)} ms, ground truth ${t.groundTruthMs.toFixed(1)} ms, recall index ${t.recallIndexMs.toFixed(1)} ms, recall ${t.recallPerNeedleMs.toFixed(2)} ms/needle` +
        (e.repeated === null ? "" : `, ${String(e.repeated.rounds.length)} rounds ${t.roundsMs.toFixed(1)} ms`),
      ...lost(e.single, "1 compaction"),
      ...(e.repeated === null ? [] : lost(e.repeated.final, `after ${String(e.repeated.rounds.length)} rounds`)),
      ...e.needlesViaRecall.results.filter((r) => !r.found).slice(0, MISSING_SHOWN).map((r) => `  needle not recalled: ${r.kind} "${r.value}" (${r.reason ?? ""})`),
      ...(e.truth === null ? [] : truthLines(e.truth)),
    );
  }
  for (const s of skipped) out.push("", `${basename(s.file)}: skipped (${s.reason})`);
  if (truthUnused.length > 0) out.push("", `truth files for sessions not given (left out): ${truthUnused.map((f) => basename(f)).join(", ")}`);
  if (results.length === 0) out.push("", "no session was scored");
  return out.join("\n");
}
