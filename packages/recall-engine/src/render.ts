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

/** How a surface asks for a page: the CLI's `--page 2` (default), the tool's `page: 2`, `/recall page:2`. */
export type PageSyntax = (page: number) => string;

const CLI_PAGE: PageSyntax = (page) => `--page ${String(page)}`;

export function renderResults(result: SearchResult, options: { pageSyntax?: PageSyntax } = {}): string {
  const out: string[] = [];
  // Every answer says which mode ran: a pi-vcc regex typed bare must not pass for a word search.
  const mode = result.mode === "regex" ? "regex" : "words";
  // A history search that left out sessions unable to reach this page counts only what it ranked.
  const lowerBound = (result as { readonly totalExact?: boolean }).totalExact === false;
  if (result.mode === "browse") {
    out.push(`Last ${String(result.total)} entries (scope ${result.scope})`);
  } else if (result.total === 0) {
    out.push(`No matches for ${JSON.stringify(result.query)} (${mode}, scope ${result.scope})`);
  } else {
    const segs = result.segmentCount === 1 ? "1 segment" : `${String(result.segmentCount)} segments`;
    const atLeast = lowerBound ? "at least " : "";
    out.push(
      `Found ${atLeast}${String(result.total)} ${result.total === 1 ? "match" : "matches"} for ${JSON.stringify(result.query)} (${mode}) across ${segs} (scope ${result.scope}) — page ${String(result.page)}/${String(result.pages)}${lowerBound ? "+" : ""}`,
    );
  }
  if (result.notice !== undefined) out.push(`Note: ${result.notice}`);
  for (const seg of result.segments) {
    out.push("", ...renderSegment(seg));
  }
  if (result.mode !== "browse" && (result.page < result.pages || lowerBound)) out.push("", `More: ${(options.pageSyntax ?? CLI_PAGE)(result.page + 1)}`);
  return `${out.join("\n")}\n`;
}
