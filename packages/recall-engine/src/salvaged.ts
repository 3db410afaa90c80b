// Search over the text salvaged from lines that do not parse (ledger-reader's `damaged[].salvage`): Pi
// drops those lines and they have no `#N`, so they are not in the index; a query still reaches them,
// shown as `line N (salvaged)`. Terms are matched with the index's own tokenizer and query reader.
import type { Damage } from "@context-fold/ledger-reader";
import { STOPWORDS, type ParsedQuery } from "./query.js";
import { tokenize } from "./tokenizer.js";

export interface SalvagedHit {
  /** 1-based physical line of the damaged line. */
  readonly line: number;
  readonly byteOffset: number;
  /** The entry id still readable on the line, when there is one. */
  readonly id?: string;
  readonly role?: string;
  /** Query terms found in the salvaged text (regex: 1). */
  readonly matched: number;
  /** One-line excerpt around the first match. */
  readonly text: string;
}

const PREVIEW = 160;

function excerpt(text: string, at: number): string {
  const start = Math.max(0, at - 40);
  const flat = text.slice(start, start + PREVIEW).replace(/\s+/g, " ").trim();
  return `${start > 0 ? "…" : ""}${flat}${start + PREVIEW < text.length ? "…" : ""}`;
}

/**
 * The salvaged lines a query finds, most matched terms first, then file order. Words: a line holding
 * any query term other than a stopword (every phrase, when the query has phrases); regex: a match.
 */
export function searchSalvaged(damaged: readonly Damage[], query: ParsedQuery): SalvagedHit[] {
  const hits: SalvagedHit[] = [];
  for (const d of damaged) {
    const text = d.salvage?.text ?? "";
    if (text === "") continue;
    let matched = 0;
    let at = 0;
    if (query.mode === "regex") {
      const m = query.pattern.matcher(text);
      if (!m.find()) continue;
      matched = 1;
      at = m.start();
    } else {
      if (!query.phrases.every((p) => p.pattern.test(text))) continue;
      const terms = new Set<string>();
      tokenize(text, (term) => terms.add(term));
      const wanted = query.terms.map((t) => t.primary).filter((t) => !STOPWORDS.has(t));
      const found = wanted.filter((t) => terms.has(t));
      matched = found.length + query.phrases.length;
      if (matched === 0) continue;
      const first = found[0] ?? query.phrases[0]?.text ?? "";
      at = Math.max(0, text.toLowerCase().indexOf(first.toLowerCase()));
    }
    hits.push({
      line: d.line,
      byteOffset: d.byteOffset,
      ...(d.salvage?.id === undefined ? {} : { id: d.salvage.id }),
      ...(d.salvage?.role === undefined ? {} : { role: d.salvage.role }),
      matched,
      text: excerpt(text, at),
    });
  }
  return hits.sort((a, b) => b.matched - a.matched || a.line - b.line);
}

/** The human lines for salvaged hits (none when there are none). */
export function renderSalvaged(hits: readonly SalvagedHit[]): string {
  if (hits.length === 0) return "";
  const out = [`salvaged text of damaged lines (Pi drops them; no #N): ${String(hits.length)} match(es)`];
  for (const h of hits) out.push(`  line ${String(h.line)} (salvaged)${h.role === undefined ? "" : ` ${h.role}`}: ${h.text}`);
  return `${out.join("\n")}\n`;
}
