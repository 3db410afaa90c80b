// `eval --html`: the evaluation as one self-contained HTML page for people who would rather look than
// read a table. Inline SVG charts (retention per metric; per compaction round when --rounds > 1; the
// truth-file scores against their floors), the summary table and every miss. No script, no external
// stylesheet, font or image: the file opens the same offline, attached to an issue or from a CI artifact.
// Built from the eval result alone, so the same result gives the same bytes.
import { basename } from "node:path";
import { writeFileAtomically } from "@context-fold/summary-formatter";
import { CliError, EXIT_USAGE } from "../output.js";
import { refuseSessionTarget } from "../session-input.js";
import type { CompactionEval, SessionEval } from "./evaluate-session.js";
import type { ItemTally } from "./score-retention.js";
import type { FloorCheck, Share, TruthScore } from "./score-truth.js";

/** What the report is drawn from: the document `eval --json` prints. */
export interface EvalReportInput {
  readonly sessions: readonly SessionEval[];
  readonly skipped: readonly { readonly file: string; readonly reason: string }[];
  readonly truthUnused: readonly string[];
  readonly floorsHeld: boolean;
}

/** One bar of a chart: a share in [0, 1] (`part` of it drawn darker), or null for "nothing to score". */
interface Bar {
  readonly label: string;
  readonly value: number | null;
  /** The darker part (e.g. named, of named + counted); the whole value when absent. */
  readonly part?: number;
  readonly note: string;
}

interface Series {
  readonly name: string;
  readonly colour: string;
  readonly bars: readonly Bar[];
}

const CHART_WIDTH = 720;
const LABEL_WIDTH = 190;
const NOTE_WIDTH = 110;
const ROW_HEIGHT = 22;
const BAR_HEIGHT = 14;
const PLOT_WIDTH = CHART_WIDTH - LABEL_WIDTH - NOTE_WIDTH;
const SERIES_COLOURS = ["#2f6fb3", "#d9822b", "#3b9c5a", "#8e5bb5"];
const COUNTED_OPACITY = "0.45";

/** Text for HTML content and attribute values. */
function esc(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

/** Coordinates with at most two decimals, so the bytes do not depend on float printing noise. */
function px(n: number): string {
  return String(Math.round(n * 100) / 100);
}

function tallyBar(label: string, t: ItemTally): Bar {
  if (t.n === 0) return { label, value: null, note: "none to keep" };
  const note = t.counted > 0 ? `${String(t.named)}+${String(t.counted)}/${String(t.n)}` : `${String(t.named)}/${String(t.n)}`;
  return { label, value: (t.named + t.counted) / t.n, part: t.named / t.n, note };
}

function foundBar(label: string, t: { readonly n: number; readonly found: number }): Bar {
  return t.n === 0 ? { label, value: null, note: "none" } : { label, value: t.found / t.n, note: `${String(t.found)}/${String(t.n)}` };
}

/** The retention metrics of one compaction, in the order of the text table. */
function retentionBars(c: CompactionEval): Bar[] {
  const r = c.retention;
  const founding: Bar = r.foundingRequest.expected
    ? { label: "founding request verbatim", value: r.foundingRequest.verbatim ? 1 : 0, note: r.foundingRequest.verbatim ? "yes" : "NO" }
    : { label: "founding request verbatim", value: null, note: "none to keep" };
  return [
    founding,
    tallyBar("corrections", r.corrections),
    tallyBar("modified files", r.modifiedFiles),
    tallyBar("commits", r.commits),
    tallyBar("unresolved errors", r.unresolvedErrors),
    tallyBar("needles in summary", r.needlesInSummary),
  ];
}

function recallBars(e: SessionEval): Bar[] {
  return [
    foundBar("needles via recall", e.needlesViaRecall),
    foundBar("needles via rarest words", e.needlesViaWords),
    ...(e.needlesViaSpanRecall === null ? [] : [foundBar("needles via span recall", e.needlesViaSpanRecall)]),
  ];
}

function shareBar(label: string, s: Share): Bar {
  return s.n === 0 ? { label, value: null, note: "none" } : { label, value: s.score, note: `${s.score.toFixed(2)} (${String(s.kept)}/${String(s.n)})` };
}

/**
 * A horizontal bar chart: one row per metric, one bar per series within the row, a share axis from 0
 * to 100 %, and optional floor marks (a metric's floor as a vertical tick across its row).
 */
function barChart(id: string, title: string, series: readonly Series[], floors: ReadonlyMap<string, number> = new Map()): string {
  const labels = series[0]?.bars.map((b) => b.label) ?? [];
  const rowHeight = ROW_HEIGHT * series.length + 8;
  const top = 28;
  const legendHeight = series.length > 1 ? 22 : 0;
  const height = top + labels.length * rowHeight + 24 + legendHeight;
  const x = (share: number): number => LABEL_WIDTH + share * PLOT_WIDTH;
  const parts: string[] = [];
  parts.push(`<title id="${id}-title">${esc(title)}</title>`);
  parts.push(`<text x="0" y="16" class="chart-title">${esc(title)}</text>`);
  for (const tick of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line x1="${px(x(tick))}" y1="${px(top - 4)}" x2="${px(x(tick))}" y2="${px(top + labels.length * rowHeight)}" class="grid"/>`);
    parts.push(`<text x="${px(x(tick))}" y="${px(top + labels.length * rowHeight + 14)}" class="axis" text-anchor="middle">${String(tick * 100)}%</text>`);
  }
  labels.forEach((label, row) => {
    const y0 = top + row * rowHeight;
    parts.push(`<text x="${px(LABEL_WIDTH - 8)}" y="${px(y0 + rowHeight / 2 + 4)}" class="label" text-anchor="end">${esc(label)}</text>`);
    series.forEach((s, k) => {
      const bar = s.bars[row];
      if (bar === undefined) return;
      const y = y0 + 4 + k * ROW_HEIGHT;
      const name = `${s.name}: ${label} ${bar.note}`;
      if (bar.value === null) {
        parts.push(`<text x="${px(x(0) + 4)}" y="${px(y + BAR_HEIGHT - 3)}" class="none">${esc(bar.note)}</text>`);
        return;
      }
      const whole = Math.max(0, Math.min(1, bar.value));
      const dark = Math.max(0, Math.min(whole, bar.part ?? whole));
      parts.push(`<rect x="${px(x(0))}" y="${px(y)}" width="${px(PLOT_WIDTH)}" height="${String(BAR_HEIGHT)}" class="track"/>`);
      if (whole > dark) parts.push(`<rect x="${px(x(dark))}" y="${px(y)}" width="${px((whole - dark) * PLOT_WIDTH)}" height="${String(BAR_HEIGHT)}" fill="${s.colour}" fill-opacity="${COUNTED_OPACITY}"><title>${esc(`${name} (counted)`)}</title></rect>`);
      if (dark > 0) parts.push(`<rect x="${px(x(0))}" y="${px(y)}" width="${px(dark * PLOT_WIDTH)}" height="${String(BAR_HEIGHT)}" fill="${s.colour}"><title>${esc(name)}</title></rect>`);
      parts.push(`<text x="${px(x(1) + 6)}" y="${px(y + BAR_HEIGHT - 3)}" class="value">${esc(bar.note)}</text>`);
    });
    const floor = floors.get(label);
    if (floor !== undefined) {
      parts.push(`<line x1="${px(x(floor))}" y1="${px(y0 + 1)}" x2="${px(x(floor))}" y2="${px(y0 + rowHeight - 3)}" class="floor"><title>${esc(`floor ${String(floor)}`)}</title></line>`);
    }
  });
  if (series.length > 1) {
    let lx = LABEL_WIDTH;
    const ly = top + labels.length * rowHeight + 30;
    for (const s of series) {
      parts.push(`<rect x="${px(lx)}" y="${px(ly - 10)}" width="12" height="12" fill="${s.colour}"/>`);
      parts.push(`<text x="${px(lx + 16)}" y="${px(ly)}" class="label">${esc(s.name)}</text>`);
      lx += 24 + s.name.length * 7;
    }
  }
  return svg(id, title, height, parts);
}

/** Summary tokens of each round of the chain, as columns (a round with nothing to compact yet shows none). */
function roundsChart(id: string, rounds: NonNullable<SessionEval["repeated"]>["rounds"]): string {
  const title = "Summary tokens per compaction round";
  const top = 28;
  const plotHeight = 160;
  const height = top + plotHeight + 40;
  const max = Math.max(1, ...rounds.map((r) => r.summaryTokens));
  const slot = (CHART_WIDTH - LABEL_WIDTH) / Math.max(1, rounds.length);
  const width = Math.min(48, slot * 0.7);
  const parts: string[] = [`<title id="${id}-title">${esc(title)}</title>`, `<text x="0" y="16" class="chart-title">${esc(title)}</text>`];
  parts.push(`<line x1="${px(LABEL_WIDTH)}" y1="${px(top + plotHeight)}" x2="${px(CHART_WIDTH)}" y2="${px(top + plotHeight)}" class="grid"/>`);
  parts.push(`<text x="${px(LABEL_WIDTH - 8)}" y="${px(top + 10)}" class="axis" text-anchor="end">${String(max)} tokens</text>`);
  parts.push(`<text x="${px(LABEL_WIDTH - 8)}" y="${px(top + plotHeight)}" class="axis" text-anchor="end">0</text>`);
  rounds.forEach((r, i) => {
    const cx = LABEL_WIDTH + slot * i + slot / 2;
    const h = (r.summaryTokens / max) * plotHeight;
    if (r.firstKeptEntryId === null) parts.push(`<text x="${px(cx)}" y="${px(top + plotHeight - 4)}" class="none" text-anchor="middle">nothing yet</text>`);
    else {
      parts.push(
        `<rect x="${px(cx - width / 2)}" y="${px(top + plotHeight - h)}" width="${px(width)}" height="${px(h)}" fill="${SERIES_COLOURS[1] ?? "#d9822b"}"><title>${esc(`round ${String(r.round)}: ${String(r.summaryTokens)} summary tokens, ${String(r.lineageEntries)} lineage entries, ${String(r.compactMs)} ms`)}</title></rect>`,
      );
      parts.push(`<text x="${px(cx)}" y="${px(top + plotHeight - h - 4)}" class="value" text-anchor="middle">${String(r.summaryTokens)}</text>`);
    }
    parts.push(`<text x="${px(cx)}" y="${px(top + plotHeight + 16)}" class="axis" text-anchor="middle">round ${String(r.round)}</text>`);
  });
  return svg(id, title, height, parts);
}

function svg(id: string, title: string, height: number, parts: readonly string[]): string {
  return [
    `<figure class="chart" id="${id}">`,
    `<svg role="img" aria-labelledby="${id}-title" viewBox="0 0 ${String(CHART_WIDTH)} ${px(height)}" width="${String(CHART_WIDTH)}" height="${px(height)}">`,
    ...parts,
    "</svg>",
    `<figcaption>${esc(title)}</figcaption>`,
    "</figure>",
  ].join("\n");
}

function truthChart(id: string, t: TruthScore): string {
  const f = t.floors;
  const bars: Bar[] = [
    shareBar("decisions (high/medium)", t.decisions.highMedium),
    shareBar("modified files named", t.modifiedFiles),
    shareBar("commits named", t.commits),
    shareBar("open errors named", t.openErrors),
    shareBar("questions by recall", t.questionsByQuestion),
    shareBar("answers by recall", t.questionsByAnswer),
  ];
  const floors = new Map<string, number>([
    ["decisions (high/medium)", f.decisions.floor],
    ["modified files named", f.modifiedFiles.floor],
    ["commits named", f.commits.floor],
    ["open errors named", f.openErrors.floor],
  ]);
  return barChart(id, `Scores against ${basename(t.truthFile)} (ticks: floors)`, [{ name: "truth", colour: SERIES_COLOURS[2] ?? "#3b9c5a", bars }], floors);
}

function list(title: string, items: readonly string[]): string {
  if (items.length === 0) return "";
  return `<h4>${esc(title)} (${String(items.length)})</h4>\n<ul>\n${items.map((i) => `<li>${esc(i)}</li>`).join("\n")}\n</ul>`;
}

function compactionMisses(c: CompactionEval, run: string): string[] {
  const r = c.retention;
  return [
    r.foundingRequest.expected && !r.foundingRequest.verbatim ? list(`${run}: founding request`, ["not verbatim in the summary or digest"]) : "",
    list(`${run}: corrections lost`, r.corrections.missing),
    list(`${run}: modified files lost`, r.modifiedFiles.missing),
    list(`${run}: commits lost`, r.commits.missing),
    list(`${run}: unresolved errors lost`, r.unresolvedErrors.missing),
    list(`${run}: needles not in the summary`, r.needlesInSummary.missing),
  ];
}

function floorText(c: FloorCheck): string {
  return `${c.op === ">=" ? "≥" : "≤"} ${String(c.floor)}: ${c.held ? "held" : "NOT held"}`;
}

function truthMisses(t: TruthScore): string[] {
  const junk = [...t.junk.facts.map((j) => `facts: ${j}`), ...(t.junk.summaryFiles ?? []).map((j) => `summary files: ${j}`), ...t.junk.seedIndexFiles.map((j) => `seed index files: ${j}`)];
  const tail = (m: { text: string; inTail: boolean }): string => (m.inTail ? `${m.text} (in the kept tail)` : m.text);
  return [
    list(
      "decisions lost",
      t.decisions.missing.map((m) => `[${m.importance}] ${m.line === null ? (m.entryId ?? "?") : `line ${String(m.line)}`}: key "${m.key}" lacks ${m.missingWords.map((w) => `"${w}"`).join(", ")}${m.inTail ? " (in the kept tail)" : ""}`),
    ),
    list("modified files not named", t.modifiedFiles.missing),
    list("junk listed as files", junk),
    list("commits not named", t.commits.missing.map(tail)),
    list("open errors not named", t.openErrors.missing.map(tail)),
    list("questions not answered by recall", t.questionsByQuestion.results.filter((r) => !r.found).map((r) => `${r.question} [query: ${r.query}]`)),
  ];
}

function yes(ok: boolean): string {
  return ok ? `<span class="ok">ok</span>` : `<span class="bad">FAILED</span>`;
}

function sessionSection(e: SessionEval, index: number): string {
  const name = basename(e.file);
  const id = `s${String(index + 1)}`;
  const charts: string[] = [];
  const singleSeries: Series = { name: "1 compaction", colour: SERIES_COLOURS[0] ?? "#2f6fb3", bars: [...retentionBars(e.single), ...recallBars(e)] };
  charts.push(barChart(`${id}-retention`, "Retention per metric (darker: named; lighter: counted by a recall line)", [singleSeries]));
  if (e.repeated !== null) {
    const rounds = e.repeated.rounds.length;
    charts.push(
      barChart(`${id}-rounds-retention`, `Retention per compaction round: the single compaction and after ${String(rounds)} rounds (${e.repeated.roundFacts})`, [
        { name: "1 compaction", colour: SERIES_COLOURS[0] ?? "#2f6fb3", bars: retentionBars(e.single) },
        { name: `after ${String(rounds)} rounds`, colour: SERIES_COLOURS[1] ?? "#d9822b", bars: retentionBars(e.repeated.final) },
      ]),
    );
    charts.push(roundsChart(`${id}-rounds-tokens`, e.repeated.rounds));
  }
  if (e.truth !== null) charts.push(truthChart(`${id}-truth`, e.truth));
  const f = e.floors;
  const t = e.times;
  const sizes = (label: string, c: CompactionEval): string =>
    `<tr><th scope="row">${esc(label)}</th><td>${String(c.summaryTokens)}</td><td>${String(c.digestTokens)}</td><td>${String(c.tokensBefore)} → ${String(c.tokensAfter)}</td><td>${c.ratio.toFixed(1)}×</td><td>${c.withinBudget ? "yes" : "no"}</td></tr>`;
  const misses = [
    ...compactionMisses(e.single, "1 compaction"),
    ...(e.repeated === null ? [] : compactionMisses(e.repeated.final, `after ${String(e.repeated.rounds.length)} rounds`)),
    list(
      "needles not recalled",
      e.needlesViaRecall.results.filter((r) => !r.found).map((r) => `${r.kind} "${r.value}"${r.reason === undefined ? "" : ` (${r.reason})`}`),
    ),
    ...(e.truth === null ? [] : truthMisses(e.truth)),
  ].filter((m) => m !== "");
  const truthFloors =
    e.truth === null
      ? ""
      : `<p>Truth floors: decisions ${floorText(e.truth.floors.decisions)}; files ${floorText(e.truth.floors.modifiedFiles)}; junk ${floorText(e.truth.floors.junk)}; commits ${floorText(e.truth.floors.commits)}; open errors ${floorText(e.truth.floors.openErrors)}; founding request verbatim ${e.truth.floors.foundingRequest.held ? "held" : "NOT held"}.</p>`;
  return [
    `<section class="session" id="${id}">`,
    `<h2>${esc(name)}</h2>`,
    `<p class="meta">${esc(e.file)} — ${String(e.entries)} entries, ${String(e.blocks)} blocks, ${String(e.single.windowBlocks)} summarized; ${String(e.needles)} ${e.needleSource} needles</p>`,
    `<p>Floors: founding request ${yes(f.foundingRequest)}, commits named or counted ${yes(f.commits)}, needles via recall ${yes(f.needlesViaRecall)}${f.truth === null ? "" : `, truth ${yes(f.truth)}`}.</p>`,
    truthFloors,
    `<table><thead><tr><th></th><th>summary tokens</th><th>digest tokens</th><th>tokens before → after</th><th>ratio</th><th>within budget</th></tr></thead><tbody>`,
    sizes("1 compaction", e.single),
    ...(e.repeated === null ? [] : [sizes(`after ${String(e.repeated.rounds.length)} rounds`, e.repeated.final)]),
    "</tbody></table>",
    `<p class="meta">Time: compact ${t.compactMs.toFixed(1)} ms, ground truth ${t.groundTruthMs.toFixed(1)} ms, recall index ${t.recallIndexMs.toFixed(1)} ms, recall ${t.recallPerNeedleMs.toFixed(2)} ms/needle${e.repeated === null ? "" : `, rounds ${t.roundsMs.toFixed(1)} ms`}.</p>`,
    ...charts,
    `<h3>Misses</h3>`,
    misses.length === 0 ? `<p>Nothing missed.</p>` : misses.join("\n"),
    "</section>",
  ]
    .filter((line) => line !== "")
    .join("\n");
}

const STYLE = `
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 780px; color: #1d2329; background: #fff; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 36px; border-bottom: 1px solid #d0d7de; } h3 { font-size: 15px; } h4 { font-size: 13px; margin: 12px 0 4px; }
.meta { color: #57606a; } .ok { color: #1a7f37; font-weight: 600; } .bad { color: #cf222e; font-weight: 600; }
table { border-collapse: collapse; margin: 8px 0; } th, td { border: 1px solid #d0d7de; padding: 3px 8px; text-align: right; } th[scope=row] { text-align: left; }
figure.chart { margin: 16px 0; } figcaption { display: none; }
svg .chart-title { font: 600 13px system-ui, sans-serif; fill: #1d2329; } svg .label { font: 12px system-ui, sans-serif; fill: #1d2329; }
svg .axis, svg .value, svg .none { font: 11px system-ui, sans-serif; fill: #57606a; } svg .none { font-style: italic; }
svg .grid { stroke: #d0d7de; stroke-width: 1; } svg .track { fill: #f0f3f6; } svg .floor { stroke: #cf222e; stroke-width: 2; }
ul { margin: 0 0 8px; padding-left: 20px; } li { word-break: break-word; }
`;

/** The whole report: one HTML document, nothing fetched when it is opened. */
export function renderEvalHtml(doc: EvalReportInput): string {
  const scored = doc.sessions.length;
  const overall = scored === 0 ? `<p class="bad">No session was scored.</p>` : `<p>${String(scored)} session${scored === 1 ? "" : "s"} scored; every floor ${doc.floorsHeld ? `<span class="ok">held</span>` : `<span class="bad">did not hold</span>`}.</p>`;
  const skipped = list(
    "skipped, not scored",
    doc.skipped.map((s) => `${basename(s.file)}: ${s.reason}`),
  );
  const unused = list(
    "truth files for sessions not given (left out)",
    doc.truthUnused.map((f) => basename(f)),
  );
  return [
    "<!DOCTYPE html>",
    `<html lang="en">`,
    "<head>",
    `<meta charset="utf-8">`,
    `<meta name="viewport" content="width=device-width, initial-scale=1">`,
    "<title>context-fold eval report</title>",
    `<style>${STYLE}</style>`,
    "</head>",
    "<body>",
    "<h1>context-fold eval report</h1>",
    overall,
    skipped,
    unused,
    ...doc.sessions.map((e, i) => sessionSection(e, i)),
    "</body>",
    "</html>",
  ]
    .filter((line) => line !== "")
    .join("\n")
    .concat("\n");
}

/**
 * Write the report to `path`, replacing it atomically; never over one of the sessions given (`inputs`)
 * nor over any Pi session file.
 */
export async function writeEvalHtml(path: string, doc: EvalReportInput, inputs: readonly string[]): Promise<void> {
  for (const input of inputs) refuseSessionTarget(path, input, "--html");
  try {
    await writeFileAtomically(path, renderEvalHtml(doc));
  } catch (error) {
    // A file system refusal (no such folder, no permission, a full disk) is the user's to fix, not a bug.
    if (error instanceof Error && "code" in error) throw new CliError(`--html: cannot write ${path}: ${error.message}`, { code: "WRITE_FAILED", exitCode: EXIT_USAGE });
    throw error;
  }
}
