// Reads a recall query: words (OR-ranked, BM25), "quoted phrases" (required), or a regex only when
// asked (`/pattern/flags` or the regex option). Punctuation in a plain question never means regex.
// re2js through regex-engine.ts: loaded when a pattern is first compiled, not with this module.
import { RE2JS } from "./regex-engine.js";
import { RecallError, RecallPatternError } from "./errors.js";
import { isCjk, queryTerms, type QueryTerm } from "./tokenizer.js";

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
      /** Why a query that looked like a regex was searched as words (the engine refused the pattern). */
      readonly notice?: string;
    }
  | {
      readonly mode: "regex";
      readonly text: string;
      readonly source: string;
      readonly pattern: RE2JS;
      /** How it became a regex: `/…/`, the regex option, or pi-vcc's convention (regex syntax in a bare query). */
      readonly how: "slashes" | "option" | "convention";
    };

/**
 * Function words of English questions: they carry no subject, so they only add to the score of blocks
 * other words matched (a query of nothing else searches them as words).
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    "a about actually after again all also am an and any are as at be been before being both but by can could did do does doing " +
    "during each few for from had has have having he her here hers him his how i if in into is it its itself just me more " +
    "many most much my no nor not now of off on once only or other our ours out over own really said same say says she should so some such tell than that the " +
    "their theirs them then there these they this those through to too under until up very was we were what when where " +
    "which while who whom why will with would you your yours"
  ).split(" "),
);

/**
 * The pieces a compound query token can be found by when no indexed term holds it whole or begins with
 * it (`src/auth` inside `src/auth/session.ts`, `auth/session`, `tables_final`): its parts split at
 * `- _ / . : \ @ $`; a CJK stretch gives its character bigrams (`잔량비율`). Fewer than two: none.
 */
export function piecesOf(token: string): string[] {
  const out: string[] = [];
  let piece = "";
  const flush = (): void => {
    if (piece.length === 0) return;
    let cjk = 0;
    for (let k = 0; k < piece.length; k++) if (isCjk(piece.charCodeAt(k))) cjk++;
    if (cjk === piece.length && piece.length > 2) for (let k = 0; k + 2 <= piece.length; k++) out.push(piece.slice(k, k + 2));
    else out.push(piece);
    piece = "";
  };
  for (const ch of token) {
    if ("-_/.:\\@$".includes(ch)) flush();
    else piece += ch;
  }
  flush();
  return out.length >= 2 ? [...new Set(out)] : [];
}

/** A file extension: a letter, then up to three letters or digits (`ts`, `md`, `json`, `mp4`). */
const EXTENSION = /^[a-z][a-z0-9]{0,3}$/;

/**
 * The name a file token is also written by, without its extension: `interactive-mode` for
 * `interactive-mode.ts` (a commit message, a sentence or an import names the module so), or null. Only
 * for a name that is itself a compound (two pieces or more): a plain word left by the cut (`main` of
 * `main.ts`, `readme` of `README.md`) would match every block using the word.
 */
export function fileBase(token: string): string | null {
  const dot = token.lastIndexOf(".");
  if (dot <= 0 || !EXTENSION.test(token.slice(dot + 1))) return null;
  const base = token.slice(0, dot);
  return piecesOf(base).length >= 2 ? base : null;
}

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

/**
 * pi-vcc's convention: a bare query written in regex syntax is a regex. The marks, each as regex uses
 * it (so prose and pasted text stay words): `|` between two non-blank alternatives (`hook|inject`, not
 * a table row `| a | b |`); `.*` or `.+`; `\w`, `\d`, `\s`; a character class `[…]` holding a range, a
 * negation or an escape, or followed by a quantifier (`[0-9]+`, not `[context-fold k3f9]` or `[ERROR]`);
 * `^` opening the query and `$` closing it (`under $5` is words). Marks inside a `"quoted phrase"` do
 * not count: quotes ask for literal text. Linear passes over the query.
 */
export function looksLikeRegex(query: string): boolean {
  // A "quoted phrase" is literal text: marks inside it (a pasted `365wd|    except Foo:` line of a
  // hash-prefixed file read) are the phrase's own characters, not regex syntax.
  const text = outsideQuotes(query).trim();
  if (text.length === 0) return false;
  if (text.startsWith("^") || text.endsWith("$")) return true;
  if (text.includes(".*") || text.includes(".+") || /\\[wds]/.test(text)) return true;
  if (text.includes("|")) {
    const alternatives = text.split("|");
    if (alternatives.every((a) => a.trim().length > 0)) return true;
  }
  // One `]` closes every `[` before it: found once per stretch, so the scan stays linear.
  let close = -1;
  for (let open = text.indexOf("["); open >= 0; open = text.indexOf("[", open + 1)) {
    if (open > close) close = text.indexOf("]", open + 1);
    if (close < 0) break;
    // A class is short; measured before slicing, so a long run of `[` costs nothing each.
    if (close - open - 1 === 0 || close - open - 1 > 64) continue;
    const inside = text.slice(open + 1, close);
    if (/\s/.test(inside)) continue;
    const after = text.charAt(close + 1);
    if (inside.startsWith("^") || inside.includes("\\") || /.-./.test(inside) || after === "*" || after === "+" || after === "?" || after === "{") return true;
  }
  return false;
}

/** The query with each closed `"…"` phrase blanked out, quotes paired as `parseWords` pairs them. */
function outsideQuotes(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const open = text.indexOf('"', i);
    const close = open < 0 ? -1 : text.indexOf('"', open + 1);
    if (open < 0 || close < 0) return out + text.slice(i);
    out += `${text.slice(i, open)} `;
    i = close + 1;
  }
  return out;
}

/**
 * `regex: true` takes the whole query as a pattern (case-insensitive); `/p/flags` uses the given flags;
 * a bare query in regex syntax (`looksLikeRegex`) is a case-insensitive regex too, and when the engine
 * refuses it, a word search with a notice saying so.
 */
export function parseQuery(query: string, options: { regex?: boolean } = {}): ParsedQuery {
  const text = query.trim();
  const slashed = SLASHED.exec(text);
  if (slashed !== null) {
    const source = slashed[1] as string;
    return { mode: "regex", text, source, pattern: compilePattern(source, slashed[2] ?? ""), how: "slashes" };
  }
  if (options.regex === true) return { mode: "regex", text, source: text, pattern: compilePattern(text, "i"), how: "option" };
  if (looksLikeRegex(text)) {
    try {
      return { mode: "regex", text, source: text, pattern: compilePattern(text, "i"), how: "convention" };
    } catch (error) {
      const cause = error instanceof Error ? error.cause : undefined;
      const reason = cause instanceof Error ? cause.message : error instanceof Error ? error.message : String(error);
      return { ...parseWords(text), notice: `${JSON.stringify(text)} looks like a regex but is not one the engine runs (${reason}); searched as words` };
    }
  }
  return parseWords(text);
}

/** `didn't`, `isn't`: the negation, a stopword, rather than a `didn` and a `t` to search for. */
const NEGATION = /n['’]t\b/giu;
/**
 * English clitics after a letter (`session's`, `we're`, `they've`, `you'll`, `I'd`, `I'm`): split off they
 * become one-letter query words (`s`, `d`, `m`) that match unrelated blocks and count against the
 * share of the question a block holds. `O'Reilly` keeps its parts. Only the query is read this way;
 * the pasted text is still matched verbatim.
 */
const CLITIC = /(\p{L})['’](?:s|re|ve|ll|d|m)\b/giu;

function withoutClitics(text: string): string {
  // Both need an apostrophe: a query without one never compiles them (a unicode, case-folding pattern
  // costs a one-shot search's process about a millisecond to compile).
  if (!text.includes("'") && !text.includes("’")) return text;
  return text.replace(NEGATION, " not").replace(CLITIC, "$1");
}

function parseWords(text: string): Extract<ParsedQuery, { mode: "words" }> {
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
  const terms = queryTerms(withoutClitics(rest));
  const words = rest.trim().split(/\s+/);
  const verbatim = phrases.length === 0 && words.length >= 3 ? literalPattern(words) : null;
  return { mode: "words", text, terms, phrases, verbatim };
}
