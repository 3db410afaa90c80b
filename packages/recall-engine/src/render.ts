// Human text for search, browse and expand results (the JSON form is the result object itself).
import type { ResultSegment, SearchResult } from "./results.js";

function renderSegment(seg: ResultSegment): string[] {
  const range = seg.from === seg.to ? `#${String(seg.from)}` : `#${String(seg.from)}-#${String(seg.to)}`;
  const what = seg.context ? "(context)" : `(${String(seg.matched)}/${String(seg.size)} entries match)`;
  const where = seg.session === undefined ? "" : `${seg.session} `;
  const out = [`--- ${where}${range} turn ${String(seg.turn)} ${what} ---`];
  for (const line of seg.lines) {
    if (line.skippedBefore > 0) out.push(`  … ${String(line.skippedBefore)} more`);
    out.push(`${line.matched ? ">" : " "} #${String(line.index)} [${line.label}] ${line.preview}`);
  }
  if (seg.skippedAfter > 0) out.push(`  … ${String(seg.skippedAfter)} more`);
  return out;
}

export function renderResults(result: SearchResult): string {
  const out: string[] = [];
  if (result.mode === "browse") {
    out.push(`Last ${String(result.total)} entries (scope ${result.scope})`);
  } else if (result.total === 0) {
    out.push(`No matches for ${JSON.stringify(result.query)} (scope ${result.scope})`);
  } else {
    const segs = result.segmentCount === 1 ? "1 segment" : `${String(result.segmentCount)} segments`;
    out.push(
      `Found ${String(result.total)} ${result.total === 1 ? "match" : "matches"} for ${JSON.stringify(result.query)}${result.mode === "regex" ? " (regex)" : ""} across ${segs} (scope ${result.scope}) — page ${String(result.page)}/${String(result.pages)}`,
    );
  }
  for (const seg of result.segments) {
    out.push("", ...renderSegment(seg));
  }
  if (result.mode !== "browse" && result.page < result.pages) out.push("", `More: --page ${String(result.page + 1)}`);
  return `${out.join("\n")}\n`;
}
