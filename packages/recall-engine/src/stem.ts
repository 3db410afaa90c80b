// Light English stemming for query words: the stem is matched as a prefix of indexed terms, so
// `installed` finds `install`, `installs`, `installation`; `carry` finds `carried`; `tickers` finds
// `ticker`; a noun made of a verb finds the verb (`deduplication` → `deduplicate`, `compaction` →
// `compact`). Only inflection endings and the `-(a)tion` of such nouns are cut (no dictionary), and
// only from plain lowercase words: identifiers, paths and numbers are matched as typed.

/** Shortest stem kept: a shorter one would prefix-match most of the vocabulary. */
const MIN_STEM = 3;
/**
 * Shortest stem left by cutting a noun's `-(a)tion`: the cut is derivational, so what is left must still
 * name the verb (`validation` → `valid`, `creation` → `creat`), not a fragment that begins hundreds of
 * unrelated words (`option` → `opt`, `action` → `act`, `section` → `sect` are kept whole).
 */
const MIN_NOUN_STEM = 5;

/**
 * A question names an action by its noun (`the deduplication`, `the installation`) where the session
 * wrote the verb (`Deduplicate interactive-mode`, `npm install`): `-ation` is cut when a stem of
 * MIN_NOUN_STEM letters is left (`installation` → `install`, `configuration` → `configur`), else `-ion`
 * after its `t` (`creation` → `creat`, `compaction` → `compact`); plurals alike (`installations`). `-sion` is left alone: `session`,
 * `version` and `permission` do not name their verbs by it.
 */
function nounStem(word: string): string | null {
  if (word.endsWith("ation") && word.length - 5 >= MIN_NOUN_STEM) return word.slice(0, -5);
  if (word.endsWith("tion") && word.length - 3 >= MIN_NOUN_STEM) return word.slice(0, -3);
  return null;
}

function isVowel(c: string): boolean {
  return c === "a" || c === "e" || c === "i" || c === "o" || c === "u";
}

/** `running` → `run`, `logged` → `log`: a doubled final consonant left by a cut ending is single. */
function undouble(stem: string): string {
  const n = stem.length;
  if (n > MIN_STEM && stem[n - 1] === stem[n - 2] && !isVowel(stem[n - 1] as string) && stem[n - 1] !== "l" && stem[n - 1] !== "s") return stem.slice(0, -1);
  return stem;
}

/** The stem of a lowercase word, or null when the word is not a plain word or has no ending to cut. */
export function stemOf(word: string): string | null {
  if (!/^[a-z]+$/.test(word) || word.length <= MIN_STEM) return null;
  const cut = (n: number, doubled = false): string | null => {
    const stem = word.slice(0, word.length - n);
    const out = doubled ? undouble(stem) : stem;
    return out.length >= MIN_STEM ? out : null;
  };
  const noun = nounStem(word.endsWith("tions") ? word.slice(0, -1) : word);
  if (noun !== null) return noun;
  if (word.endsWith("ies") || word.endsWith("ied")) return cut(3);
  if (word.endsWith("ing")) return cut(3, true);
  if (word.endsWith("ed")) return cut(2, true);
  if (word.endsWith("es")) return cut(2);
  if (word.endsWith("ss")) return null;
  if (word.endsWith("s")) return cut(1);
  if (word.endsWith("ly")) return cut(2);
  if (word.endsWith("y") || word.endsWith("e")) return cut(1);
  return null;
}

/**
 * Letters a truncation stem keeps: six, the usual length for English truncation stemming (five joins
 * unrelated words of a code session: `commit`/`common`, `instal`… would be `insta`).
 */
export const TRUNCATION = 6;

/**
 * The first TRUNCATION letters of a plain lowercase word whose stem (else the word) is longer: a looser
 * stem that reaches the forms suffix cutting cannot — a noun and its verb (`comparison` → `compar`,
 * compare), British and American spellings (`reorganisation` → `reorga`, reorganize). Null for shorter
 * words (their stem is as loose already) and for identifiers, paths and numbers (matched as typed).
 */
export function truncationOf(word: string): string | null {
  if (!/^[a-z]+$/.test(word)) return null;
  const stem = stemOf(word) ?? word;
  return stem.length > TRUNCATION ? word.slice(0, TRUNCATION) : null;
}
