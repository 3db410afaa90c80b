// Reads a recall query: words (OR-ranked, BM25), "quoted phrases" (required), or a regex only when
// asked (`/pattern/flags` or the regex option). Punctuation in a plain question never means regex.
import { RE2JS } from "re2js";
import { RecallError, RecallPatternError } from "./errors.js";
import { queryTerms, type QueryTerm } from "./tokenizer.js";

export interface Phrase {
  readonly text: string;
  /** Primary terms a block must hold before the phrase itself is checked. */
  readonly terms: readonly string[];
  readonly pattern: RE2JS;
}

export type ParsedQuery =
  | {
      readonly mode: "words";
      readonly text: string;
      readonly terms: readonly QueryTerm[];
      readonly phrases: readonly Phrase[];
      /** The whole query as a whitespace-tolerant literal, for queries of 3+ words (a ranking boost only). */
      readonly verbatim: RE2JS | null;
    }
  | { readonly mode: "regex"; readonly text: string; readonly source: string; readonly pattern: RE2JS };

/** Words that carry no subject: they only add to the score when the query has other words. */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in is it its " +
    "me my of on or our so that the their then there these this to was we were what when where which who why will with would you your"
  ).split(" "),
);

/** Compiles with re2js (linear time); anything it refuses becomes a typed RecallPatternError. */
export function compilePattern(source: string, flags = ""): RE2JS {
  if (source.length === 0) throw new RecallError("BAD_QUERY", "empty regex: give a pattern between the slashes");
  let bits = 0;
  for (const f of flags) {
    if (f === "i") bits |= RE2JS.CASE_INSENSITIVE;
    else if (f === "m") bits |= RE2JS.MULTILINE;
    else if (f === "s") bits |= RE2JS.DOTALL;
    else throw new RecallPatternError(source, `unknown flag "${f}" (use i, m or s)`);
  }
  try {
    return RE2JS.compile(source, bits);
  } catch (error) {
    throw new RecallPatternError(source, error instanceof Error ? error.message : String(error), error);
  }
}

/** Words matched literally, case-insensitive, any whitespace between them. */
function literalPattern(words: readonly string[]): RE2JS {
  return RE2JS.compile(words.map((w) => RE2JS.quote(w)).join("\\s+"), RE2JS.CASE_INSENSITIVE);
}

const SLASHED = /^\/(.+)\/([a-z]*)$/s;

/** `regex: true` takes the whole query as a pattern (case-insensitive); `/p/flags` uses the given flags. */
export function parseQuery(query: string, options: { regex?: boolean } = {}): ParsedQuery {
  const text = query.trim();
  const slashed = SLASHED.exec(text);
  if (slashed !== null) {
    const source = slashed[1] as string;
    return { mode: "regex", text, source, pattern: compilePattern(source, slashed[2] ?? "") };
  }
  if (options.regex === true) return { mode: "regex", text, source: text, pattern: compilePattern(text, "i") };
  const phrases: Phrase[] = [];
  let rest = "";
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('"', i);
    const close = open < 0 ? -1 : text.indexOf('"', open + 1);
    if (open < 0 || close < 0) {
      rest += text.slice(i);
      break;
    }
    rest += `${text.slice(i, open)} `;
    const phrase = text.slice(open + 1, close).trim();
    const terms = queryTerms(phrase).map((t) => t.primary);
    if (terms.length > 0) {
      phrases.push({ text: phrase, terms, pattern: literalPattern(phrase.split(/\s+/)) });
    }
    i = close + 1;
  }
  const terms = queryTerms(rest);
  const words = rest.trim().split(/\s+/);
  const verbatim = phrases.length === 0 && words.length >= 3 ? literalPattern(words) : null;
  return { mode: "words", text, terms, phrases, verbatim };
}
