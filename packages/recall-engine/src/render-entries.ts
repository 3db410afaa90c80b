// Human text for expanded `#N` entries and recalled seed-index spans: one format for the CLI, the tool
// and `/recall` (the JSON form is the result object itself).
import type { ExpandedEntry } from "./recall-index.js";
import type { RecalledSpan, SpanRecallResult } from "./span-recall.js";

function entryState(e: ExpandedEntry): string {
  if (e.verified) return `verified against the ${e.verifiedAgainst === "block-table" ? "block table" : e.verifiedAgainst === "seed-index" ? "seed index" : "ledger"}`;
  return `NOT VERIFIED: ${e.problem ?? "unknown"}`;
}

/** `=== #N [label] turn T (verified against …) ===` and the full text, per entry; `session` names whose entries they are. */
export function renderExpanded(entries: readonly ExpandedEntry[], options: { session?: string } = {}): string {
  if (entries.length === 0) return "No such entries.\n";
  const where = options.session === undefined ? "" : `${options.session} `;
  return entries.map((e) => `=== ${where}#${String(e.index)} [${e.label}] turn ${String(e.turn)} (${entryState(e)}) ===\n${e.text}\n`).join("\n");
}

function spanState(s: RecalledSpan): string {
  if (s.status === "verified") return "verified: sha256 matches the session file";
  return `${s.status}${s.reason === undefined ? "" : `: ${s.reason}`}`;
}

/** Each span's heading (code, block, tool, turn, verification) and its text or its scan. */
export function renderSpans(result: SpanRecallResult, options: { session?: string } = {}): string {
  const where = options.session === undefined ? "" : ` of ${options.session}`;
  const out: string[] = [`${String(result.spans.length)} span(s)${where} from ${result.seedIndex} (${String(result.records)} records)`];
  for (const s of result.spans) {
    const at = s.index === undefined ? "" : ` #${String(s.index)}`;
    out.push("", `=== ${s.code} ${s.blockId}${at} ${s.tool ?? ""} turn ${String(s.turn)} (${spanState(s)}) ===`);
    if (s.scan !== undefined) {
      const src = s.scan.source === "full-output" ? `full output ${s.scan.path ?? ""}` : "span text";
      out.push(`scan of ${src}: ${String(s.scan.matched)} line(s)${s.scan.truncated ? " (first shown)" : ""}${s.scan.refused === undefined ? "" : ` — full output refused: ${s.scan.refused}`}`);
      for (const line of s.scan.lines) out.push(`${String(line.line).padStart(6)}: ${line.text}`);
    } else if (s.text !== undefined) out.push(s.text);
  }
  return `${out.join("\n")}\n`;
}

/** What each session a page's hits come from is: its label, project folder, date and first user line. */
export function renderSessionNames(named: Readonly<Record<string, { readonly project: string | null; readonly date: string | null; readonly title: string }>>): string {
  const labels = Object.keys(named).sort();
  if (labels.length === 0) return "";
  const lines = labels.map((label) => {
    const s = named[label];
    const project = s?.project ?? "(no project folder)";
    const date = s?.date === null || s?.date === undefined ? "(no date)" : s.date.slice(0, 10);
    const title = s === undefined || s.title === "" ? "" : ` — ${s.title}`;
    return `  ${label}: ${project}, ${date}${title}`;
  });
  return `Sessions:\n${lines.join("\n")}\n`;
}
