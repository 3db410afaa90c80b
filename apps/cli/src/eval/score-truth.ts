// Scores one compaction against a hand-written truth file, as ../shared/fixtures/real/README.md says:
// a decision survives when every word of its key appears (case-insensitive) in the summary plus the
// re-injected digest; a file is named when its path or basename appears; a commit when its 7-character
// hash appears; junk is any `notFiles` string listed as a file; a question is answered by recall when its
// evidence entry is on the first page of a search made from the question's own words. Pure: the caller
// hands in the texts, the file lists and a search.
import { basename } from "node:path";
import { holdsHashPrefix, holdsPathTail, holdsToken, holdsVerbatim, haystackOf } from "./text-match.js";
import type { Importance, SessionTruth, TruthDecision, TruthOpenError, TruthRef } from "./truth-file.js";
import { plainWords, questionQuery } from "./truth-queries.js";

/** kept of n; score = kept / n (1 when there is nothing to keep), three decimals. */
export interface Share {
  readonly n: number;
  readonly kept: number;
  readonly score: number;
}

export interface DecisionMiss {
  readonly entryId: string | null;
  readonly line: number | null;
  readonly importance: Importance;
  readonly kind: TruthDecision["kind"];
  readonly key: string;
  /** Key words absent from the summary and digest. */
  readonly missingWords: readonly string[];
  /** The decision's entry is in the kept tail (still in context after the compaction). */
  readonly inTail: boolean;
}

export interface DecisionScore {
  readonly all: Share;
  /** Importance high or medium: what the floor is on. */
  readonly highMedium: Share;
  readonly high: Share;
  readonly medium: Share;
  readonly low: Share;
  readonly missing: readonly DecisionMiss[];
}

export interface ListedScore extends Share {
  readonly missing: readonly string[];
}

/** An item the summary and digest do not name; `inTail` when its entry is in the kept tail (still in context). */
export interface ItemMiss {
  readonly text: string;
  readonly inTail: boolean;
}

export interface JunkScore {
  /** Junk strings found across the three lists (each string once). */
  readonly count: number;
  /** `notFiles` strings listed as files by `facts` (its file list). */
  readonly facts: readonly string[];
  /** … by the summary's file section; null when the summary is not one we can parse. */
  readonly summaryFiles: readonly string[] | null;
  /** … by the seed index record's `files`. */
  readonly seedIndexFiles: readonly string[];
}

export interface QuestionResult {
  readonly question: string;
  /** What was typed into recall. */
  readonly query: string;
  readonly found: boolean;
  /** 1-based rank of the first hit in the evidence entry, when found. */
  readonly rank?: number;
}

export interface QuestionScore extends Share {
  readonly results: readonly QuestionResult[];
}

export interface FloorCheck {
  readonly value: number;
  readonly floor: number;
  /** ">=": value must reach the floor; "<=": value must not exceed it. */
  readonly op: ">=" | "<=";
  readonly held: boolean;
}

export interface TruthFloors {
  /** Decisions of importance high or medium kept ≥ 0.9. */
  readonly decisions: FloorCheck;
  /** Modified files named ≥ 0.95. */
  readonly modifiedFiles: FloorCheck;
  /** Junk listed as files ≤ 0. */
  readonly junk: FloorCheck;
  /** Commits named ≥ 1.0. */
  readonly commits: FloorCheck;
  /** Errors open at the end named ≥ 0.8. */
  readonly openErrors: FloorCheck;
  /** Founding request verbatim (1) in the summary or digest. */
  readonly foundingRequest: FloorCheck;
  readonly held: boolean;
}

export interface TruthScore {
  readonly truthFile: string;
  readonly foundingRequest: { readonly expected: boolean; readonly verbatim: boolean; readonly inSummary: boolean; readonly inDigest: boolean; readonly inTail: boolean };
  readonly decisions: DecisionScore;
  readonly modifiedFiles: ListedScore;
  readonly junk: JunkScore;
  readonly commits: Share & { readonly missing: readonly ItemMiss[] };
  readonly openErrors: Share & { readonly missing: readonly ItemMiss[] };
  /** Recall with the question's own words (its five longest non-stop words): what the scoring counts. */
  readonly questionsByQuestion: QuestionScore;
  /** The same with the answer's five longest non-stop words, beside it. */
  readonly questionsByAnswer: QuestionScore;
  readonly floors: TruthFloors;
}

/** One hit of a recall search: enough to tell which entry and line it came from. */
export interface PageHit {
  readonly entryId: string;
  readonly line: number;
}

export interface TruthScoringInput {
  readonly summary: string;
  readonly digest: string;
  /** The session header's cwd (paths under it or the truth's cwd are compared relative). */
  readonly cwd: string | null;
  readonly lists: {
    readonly facts: readonly string[];
    readonly summaryFiles: readonly string[] | null;
    readonly seedIndexFiles: readonly string[];
  };
  /** The entry a truth item points at is in the kept tail (after the cut, still in context). */
  readonly inTail: (ref: TruthRef) => boolean;
  /** The first page of hits of a recall search. */
  readonly firstPage: (query: string) => readonly PageHit[];
}

export const TRUTH_FLOORS = { decisions: 0.9, modifiedFiles: 0.95, junk: 0, commits: 1, openErrors: 0.8 } as const;

export function share(kept: number, n: number): Share {
  return { n, kept, score: n === 0 ? 1 : Math.round((kept / n) * 1000) / 1000 };
}

/** Every key word occurs in the lowered haystack. */
function missingWords(lowerHay: string, words: readonly string[]): string[] {
  return words.filter((w) => !lowerHay.includes(w.toLowerCase()));
}

function scoreDecisions(decisions: readonly TruthDecision[], lowerHay: string, inTail: (ref: TruthRef) => boolean): DecisionScore {
  const missing: DecisionMiss[] = [];
  const tally = { high: [0, 0], medium: [0, 0], low: [0, 0] } as Record<Importance, [number, number]>;
  for (const d of decisions) {
    const absent = missingWords(lowerHay, d.key);
    const t = tally[d.importance];
    t[1]++;
    if (absent.length === 0) t[0]++;
    else missing.push({ entryId: d.entryId, line: d.line, importance: d.importance, kind: d.kind, key: d.key.join(" "), missingWords: absent, inTail: inTail(d) });
  }
  const s = (i: Importance): Share => share(tally[i][0], tally[i][1]);
  const kept = tally.high[0] + tally.medium[0] + tally.low[0];
  return {
    all: share(kept, decisions.length),
    highMedium: share(tally.high[0] + tally.medium[0], tally.high[1] + tally.medium[1]),
    high: s("high"),
    medium: s("medium"),
    low: s("low"),
    missing,
  };
}

/** `path` without a leading `<root>/` (for each root given) and without leading "./". */
function relativeForms(path: string, roots: readonly string[]): string[] {
  const forms = new Set<string>([path]);
  for (const root of roots) {
    const prefix = root.endsWith("/") ? root : `${root}/`;
    if (path.startsWith(prefix) && path.length > prefix.length) forms.add(path.slice(prefix.length));
  }
  for (const f of [...forms]) if (f.startsWith("./") && f.length > 2) forms.add(f.slice(2));
  return [...forms];
}

/** Named: the path (as given or relative to a cwd) as a whole token, or its basename as a path's last part. */
export function namesFile(raw: string, path: string, roots: readonly string[]): boolean {
  if (relativeForms(path, roots).some((f) => holdsToken(raw, f))) return true;
  const name = basename(path);
  return name !== "" && name !== "." && holdsPathTail(raw, name);
}

/** Runs of "/" as one: `https://x` and a list's `https:/x` (a URL whose "//" was collapsed) compare equal. */
function oneSlash(path: string): string {
  let out = "";
  for (let i = 0; i < path.length; i++) if (!(path[i] === "/" && path[i - 1] === "/")) out += path[i];
  return out;
}

/** The same file spelled the same way once cwd prefixes and "./" are dropped and "/" runs collapsed. */
function samePath(a: string, b: string, roots: readonly string[]): boolean {
  const fa = relativeForms(oneSlash(a.trim()), roots);
  const fb = new Set(relativeForms(oneSlash(b.trim()), roots));
  return fa.some((f) => fb.has(f));
}

function junkIn(list: readonly string[], junk: readonly string[], roots: readonly string[]): string[] {
  return junk.filter((j) => list.some((item) => samePath(item, j, roots)));
}

function isDigit(c: string): boolean {
  return c >= "0" && c <= "9";
}

const QUOTES = new Set(["'", '"', "`"]);
const CLOSERS = new Set([")", "]", ",", ".", ";", ":", "!", "?"]);

/** One word written in quotes: opens with a quote and closes with the same one (sentence punctuation after it aside). */
function isQuoted(raw: string): boolean {
  let end = raw.length;
  while (end > 0 && CLOSERS.has(raw[end - 1] ?? "")) end--;
  const open = raw[0] ?? "";
  return end > 2 && QUOTES.has(open) && raw[end - 1] === open;
}
const INNER_MARKS = new Set(["_", ".", "/", ":", "#", "@", "-"]);

/** The longest quoted span (backticks or double quotes) taken as one identifying phrase, e.g. `astro check`. */
const SPAN_MAX = 60;

/** Texts between matching backticks or double quotes, one line, 1-60 characters. Linear: each indexOf moves on. */
function quotedSpans(text: string): string[] {
  const out: string[] = [];
  for (const q of ["`", '"']) {
    let from = 0;
    for (;;) {
      const a = text.indexOf(q, from);
      if (a < 0) break;
      const b = text.indexOf(q, a + 1);
      if (b < 0) break;
      const span = text.slice(a + 1, b).trim();
      if (span.length > 0 && span.length <= SPAN_MAX && !span.includes("\n")) out.push(span);
      from = b + 1;
    }
  }
  return out;
}

/**
 * Words of an error description that identify it rather than describe it: quoted spans (a command in
 * backticks, a name in double quotes), and tokens holding a digit, an inner `_ . / : # @ -`, an inner
 * capital (camelCase, TS2307, ENOENT), or written in quotes. Distinct, case-insensitive, at least three
 * characters for a token.
 */
export function errorKeyWords(text: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const take = (word: string): void => {
    const lower = word.toLowerCase();
    if (!seen.has(lower)) {
      seen.add(lower);
      out.push(word);
    }
  };
  for (const span of quotedSpans(text)) take(span);
  for (const raw of text.split(/\s+/)) {
    const quoted = isQuoted(raw);
    for (const word of plainWords(raw)) {
      if (word.length < 3) continue;
      let marked = quoted;
      for (let i = 0; i < word.length && !marked; i++) {
        const c = word[i] ?? "";
        if (isDigit(c) || (i > 0 && i < word.length - 1 && INNER_MARKS.has(c)) || (i > 0 && c >= "A" && c <= "Z")) marked = true;
      }
      if (marked) take(word);
    }
  }
  return out;
}

/** How many identifying words must appear for an open error to count as named: two (or all, when fewer). */
export const ERROR_WORDS_NEEDED = 2;
/** Without identifying words: three of its words of six letters or more. */
const PLAIN_ERROR_WORDS_NEEDED = 3;
const PLAIN_WORD_MIN = 6;

/**
 * Named when the truth gives a `key` and all its words appear; else when two of its identifying words
 * (`errorKeyWords`) appear, or, for a description with none, three of its long words. Case-insensitive.
 */
export function namesError(hay: string, error: Pick<TruthOpenError, "text" | "key">): boolean {
  const lowerHay = hay.toLowerCase();
  if (error.key !== null) return missingWords(lowerHay, error.key).length === 0;
  const ids = errorKeyWords(error.text);
  if (ids.length > 0) return ids.length - missingWords(lowerHay, ids).length >= Math.min(ERROR_WORDS_NEEDED, ids.length);
  const long = [...new Set(plainWords(error.text).filter((w) => w.length >= PLAIN_WORD_MIN).map((w) => w.toLowerCase()))];
  if (long.length === 0) return lowerHay.includes(error.text.toLowerCase());
  return long.length - missingWords(lowerHay, long).length >= Math.min(PLAIN_ERROR_WORDS_NEEDED, long.length);
}

/** The hit's entry is the evidence entry (by id when the truth has one, by line when it has one). */
export function sameEntry(hit: PageHit, ref: TruthRef): boolean {
  return (ref.entryId !== null && hit.entryId === ref.entryId) || (ref.line !== null && hit.line === ref.line);
}

function scoreQuestions(truth: SessionTruth, firstPage: TruthScoringInput["firstPage"], textOf: (q: SessionTruth["questions"][number]) => string): QuestionScore {
  const results: QuestionResult[] = truth.questions.map((q) => {
    const query = questionQuery(textOf(q));
    const hits = query === "" ? [] : firstPage(query);
    const at = hits.findIndex((h) => sameEntry(h, q.evidence));
    return at < 0 ? { question: q.question, query, found: false } : { question: q.question, query, found: true, rank: at + 1 };
  });
  return { ...share(results.filter((r) => r.found).length, results.length), results };
}

function atLeast(value: number, floor: number): FloorCheck {
  return { value, floor, op: ">=", held: value >= floor };
}

/** Scores a compaction (summary + digest), the three file lists and recall against `truth`. Pure. */
export function scoreTruth(truth: SessionTruth, input: TruthScoringInput): TruthScore {
  const both = haystackOf(input.summary, input.digest);
  const lower = both.raw.toLowerCase();
  const roots = [input.cwd, truth.cwd].filter((r): r is string => r !== null && r !== "");

  const founding = truth.foundingRequest;
  const inSummary = founding !== null && holdsVerbatim(haystackOf(input.summary), founding.text);
  const inDigest = founding !== null && holdsVerbatim(haystackOf(input.digest), founding.text);
  const foundingRequest = { expected: founding !== null, verbatim: inSummary || inDigest, inSummary, inDigest, inTail: founding !== null && input.inTail(founding) };

  const decisions = scoreDecisions(truth.decisions, lower, input.inTail);

  const filesMissing = truth.modifiedFiles.filter((p) => !namesFile(both.raw, p, roots));
  const modifiedFiles = { ...share(truth.modifiedFiles.length - filesMissing.length, truth.modifiedFiles.length), missing: filesMissing };

  const junkStrings = truth.notFiles.map((n) => n.string);
  const facts = junkIn(input.lists.facts, junkStrings, roots);
  const summaryFiles = input.lists.summaryFiles === null ? null : junkIn(input.lists.summaryFiles, junkStrings, roots);
  const seedIndexFiles = junkIn(input.lists.seedIndexFiles, junkStrings, roots);
  const junk = { count: new Set([...facts, ...(summaryFiles ?? []), ...seedIndexFiles]).size, facts, summaryFiles, seedIndexFiles };

  const commitsMissing = truth.commits.filter((c) => !holdsHashPrefix(both.raw, c.hash.slice(0, 7)));
  const commits = {
    ...share(truth.commits.length - commitsMissing.length, truth.commits.length),
    missing: commitsMissing.map((c) => ({ text: `${c.hash.slice(0, 7)} ${c.subject}`, inTail: c.evidence !== null && input.inTail(c.evidence) })),
  };

  const errorsMissing = truth.errorsOpenAtEnd.filter((e) => !namesError(lower, e));
  const openErrors = {
    ...share(truth.errorsOpenAtEnd.length - errorsMissing.length, truth.errorsOpenAtEnd.length),
    missing: errorsMissing.map((e) => ({ text: e.text, inTail: input.inTail(e) })),
  };

  const questionsByQuestion = scoreQuestions(truth, input.firstPage, (q) => q.question);
  const questionsByAnswer = scoreQuestions(truth, input.firstPage, (q) => q.answer);

  const floorChecks = {
    decisions: atLeast(decisions.highMedium.score, TRUTH_FLOORS.decisions),
    modifiedFiles: atLeast(modifiedFiles.score, TRUTH_FLOORS.modifiedFiles),
    junk: { value: junk.count, floor: TRUTH_FLOORS.junk, op: "<=" as const, held: junk.count <= TRUTH_FLOORS.junk },
    commits: atLeast(commits.score, TRUTH_FLOORS.commits),
    openErrors: atLeast(openErrors.score, TRUTH_FLOORS.openErrors),
    foundingRequest: atLeast(!foundingRequest.expected || foundingRequest.verbatim ? 1 : 0, 1),
  };
  const held = Object.values(floorChecks).every((c) => c.held);
  return {
    truthFile: truth.file,
    foundingRequest,
    decisions,
    modifiedFiles,
    junk,
    commits,
    openErrors,
    questionsByQuestion,
    questionsByAnswer,
    floors: { ...floorChecks, held },
  };
}
