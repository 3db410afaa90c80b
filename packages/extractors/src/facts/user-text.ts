// Classifies what the user wrote: corrections (redirects), preferences, scope changes, blockers.
// Patterns look at a bounded prefix or single sentences only, so cost is linear in the text.
import { memoizeText } from "../text-memo.js";

const HEAD = 240;

// A redirect opens the message ("no, …", "actually …", "stop", "don't …", "wait", "instead …").
const CORRECTION_START =
  /^(?:(?:ok(?:ay)?|hmm+|ugh|well|wait|hold on)[,.!]?\s{1,4})?(?:no\b|nope\b|nah\b|actually\b|instead\b|stop\b|don'?t\b|do not\b|wait\b|wrong\b|undo\b|revert\b|not (?:like )?that\b|that'?s (?:not|wrong|incorrect)\b|you (?:broke|missed|forgot|didn'?t)\b|i said\b|i told you\b|why did you\b|please don'?t\b|rather\b)/i;
// …or says so anywhere near the start.
const CORRECTION_ANYWHERE =
  /\b(?:instead of|rather than|that'?s not what|not what i (?:asked|meant|wanted)|i said\b|i told you|you should(?:n'?t| not) have|don'?t (?:do|use|add|change|touch|remove|create|write)|do not (?:do|use|add|change|touch|remove|create|write)|stop (?:doing|using|adding|changing))/i;

/** Is this user message a correction / redirect of the agent? */
export function isCorrection(text: string): boolean {
  const head = text.slice(0, HEAD).trimStart();
  return CORRECTION_START.test(head) || CORRECTION_ANYWHERE.test(head);
}

const SCOPE_START =
  /^(?:(?:ok(?:ay)?|alright|great|good|nice|cool|thanks|perfect)[,.!]?\s{1,4})?(?:also\b|now\b|next\b|additionally\b|new task\b|and also\b|another thing\b|one more thing\b|change of plans?\b|let'?s (?:also|now|move on|switch|add|implement|build|write|create|do)\b|moving on\b|on top of that\b|in addition\b|can you also\b|please also\b|switch to\b)/i;

/** Does this (non-founding) user message widen or change the task? */
export function isScopeChange(text: string): boolean {
  return SCOPE_START.test(text.slice(0, HEAD).trimStart());
}

const PREFERENCE =
  /\b(?:always|never|prefer(?:ably|red|s)?|avoid|make sure|must(?: not)?|please use|use [^\s.]{1,60} instead|instead of|no more)\b/i;
// "don't …" counts when it is an instruction (sentence start or after a comma), not "i don't understand".
const IMPERATIVE_DONT = /(?:^|[,;:]\s{0,4}|\b(?:and|but|so|please)\s{1,4})(?:don'?t|do not)\b/i;
const SENTENCE_END = /[.!?](?:\s|$)|\n/g;

/** Sentences of a user message that state a preference or rule (always / never / prefer / don't …). */
export function preferenceSentences(text: string): string[] {
  const out: string[] = [];
  const src = text.length > 8000 ? text.slice(0, 8000) : text;
  let start = 0;
  SENTENCE_END.lastIndex = 0;
  const take = (end: number): void => {
    const s = src.slice(start, end).trim();
    if (s.length >= 8 && s.length <= 300 && (PREFERENCE.test(s) || IMPERATIVE_DONT.test(s)) && !s.startsWith("```")) out.push(s);
  };
  let m: RegExpExecArray | null;
  while ((m = SENTENCE_END.exec(src)) !== null) {
    const end = m.index + 1;
    take(end);
    start = end;
    if (m[0].length === 0) SENTENCE_END.lastIndex++;
  }
  take(src.length);
  return out;
}

const BLOCKER =
  /\b(?:still (?:fail(?:s|ing)?|broken|not working|doesn'?t work|does not work|get(?:ting)?|see(?:ing)?|crash(?:es|ing)?|errors?)|doesn'?t work|does not work|not working|is broken|are broken|blocked (?:by|on)|can'?t get|fails with|keeps? (?:failing|crashing))\b/i;

const ASKED_ABOUT = /\b(?:what(?:'s| is| are)?|which (?:is|are)|whether (?:it|this) is|anything) $/i;

/** The blocker the user reports, as one clipped line, or null. */
export function blockerLine(text: string): string | null {
  const head = text.length > 2000 ? text.slice(0, 2000) : text;
  const m = BLOCKER.exec(head);
  if (m === null) return null;
  // "list what is still failing" asks for a report; it is not a blocker.
  if (ASKED_ABOUT.test(head.slice(Math.max(0, m.index - 16), m.index))) return null;
  const start = head.lastIndexOf("\n", m.index) + 1;
  let end = head.indexOf("\n", m.index);
  if (end < 0) end = head.length;
  const line = head.slice(start, end).trim();
  return line.length > 240 ? line.slice(0, 239) + "…" : line;
}

/** A bare slash command or a one-word nudge ("continue", "/mode") is not a task statement. */
export function isSubstantive(text: string): boolean {
  const t = text.trim();
  if (t.length < 12) return false;
  if (t.startsWith("/") && !t.includes(" ")) return false;
  return true;
}

/**
 * First line of a text, trimmed both sides and clipped with "…" (for the summary's one-liners). Not the
 * seed index's `firstLine` (seed/accumulator.ts), which keeps leading whitespace and clips bare, as stored.
 */
export function trimmedFirstLine(text: string, max: number): string {
  const t = text.trimStart();
  const nl = t.indexOf("\n");
  const line = (nl >= 0 ? t.slice(0, nl) : t).trim();
  return line.length > max ? line.slice(0, max - 1) + "…" : line;
}

/** A line that is structure, not a sentence: heading, quote, fence, rule, table row, list marker alone. */
function isStructureLine(line: string): boolean {
  const c = line.charCodeAt(0);
  if (c === 35 /* # */ || c === 62 /* > */ || c === 124 /* | */) return true;
  if (line.startsWith("```") || line.startsWith("~~~") || line.startsWith("---") || line.startsWith("***") || line.startsWith("===")) return true;
  // "Context:", "**Plan**" — a label opening what follows.
  return wordCountOf(line) <= 3 && (line.endsWith(":") || (line.startsWith("**") && line.endsWith("**")));
}

function wordCountOf(line: string): number {
  let n = 0;
  let inWord = false;
  for (let i = 0; i < line.length && n < 8; i++) {
    const space = line.charCodeAt(i) <= 32;
    if (!space && !inWord) n += 1;
    inWord = !space;
  }
  return n;
}

const OPEN_TAG = /^<([A-Za-z][\w.:-]{0,40})(?:\s[^<>]{0,400})?>/;
/** Leading elements looked at (a harness may stack a few: time, environment, reminders). */
const MAX_ENVELOPES = 8;

/**
 * A user message without the markup elements a harness wraps around what the user typed
 * (`<user_message_time>…</user_message_time>\n\nReview the parser.`): whole `<name …>…</name>` elements at
 * the very start, each closed by its own end tag, when text follows them. A message that is one element,
 * or whose leading tag never closes, is returned as it is. Decided by position and markup, not by tag name.
 */
export function withoutEnvelope(text: string): string {
  let rest = text.trimStart();
  if (rest.charCodeAt(0) !== 60 /* < */) return text;
  for (let n = 0; n < MAX_ENVELOPES && rest.charCodeAt(0) === 60; n++) {
    const open = OPEN_TAG.exec(rest);
    if (open === null) break;
    const close = rest.indexOf(`</${open[1] ?? ""}>`, open[0].length);
    if (close < 0) break;
    const after = rest.slice(close + (open[1] ?? "").length + 3).trimStart();
    if (after.length === 0) break;
    rest = after;
  }
  return rest.length === text.trimStart().length ? text : rest;
}

/**
 * The first substantive sentence of a text, clipped (for one-liners): headings, quotes, fences, rules,
 * table rows and labels are skipped, and the line is cut at its first sentence end. A text made only
 * of structure gives its first line.
 */
export function firstSentence(text: string, max: number): string {
  const head = text.length > 16000 ? text.slice(0, 16000) : text;
  let inFence = false;
  for (const raw of head.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("```") || line.startsWith("~~~")) {
      inFence = !inFence;
      continue;
    }
    if (inFence || line.length === 0 || isStructureLine(line)) continue;
    const end = sentenceEnd(line);
    const sentence = end > 0 && end < line.length ? line.slice(0, end) : line;
    return sentence.length > max ? sentence.slice(0, max - 1) + "…" : sentence;
  }
  return trimmedFirstLine(text, max);
}

/** Index just past the first ". ", "? " or "! " of a line (-1 when none). */
function sentenceEnd(line: string): number {
  for (let i = 1; i < line.length - 1; i++) {
    const c = line.charCodeAt(i);
    if ((c === 46 || c === 63 || c === 33) && line.charCodeAt(i + 1) === 32 && line.charCodeAt(i - 1) !== 46) return i + 1;
  }
  return -1;
}

const NEXT_LINE =
  /^(?:[-*•]\s{1,3}|\d{1,2}[.)]\s{1,3})?(?:\*\*)?(?:next(?: steps?)?\b|todo\b|then\b|remaining\b|still (?:need|to do)\b|i'?ll\b|i will\b|let me\b|we (?:still )?need to\b)/i;
const LIST_ITEM = /^(?:[-*•]|\d{1,2}[.)])\s{1,3}(\S[^\n]{0,300})/;
const NEXT_HEADER = /\b(?:next(?: steps?)?|todo|remaining|still to do|plan)\b/i;

/** Next steps stated in an assistant text: "Next, …"/"I'll …" lines and list items under a "Next steps" header. */
export function nextSteps(text: string, max = 5): string[] {
  const out: string[] = [];
  const src = text.length > 16000 ? text.slice(-16000) : text;
  let underHeader = false;
  for (const raw of src.split("\n")) {
    if (out.length >= max) break;
    const line = raw.trim();
    if (line.length === 0) continue;
    const item = LIST_ITEM.exec(line);
    if (underHeader && item !== null) {
      out.push(clip(item[1] ?? ""));
      continue;
    }
    if (item === null && line.length < 80 && NEXT_HEADER.test(line) && line.endsWith(":")) {
      underHeader = true;
      continue;
    }
    underHeader = underHeader && item !== null;
    if (NEXT_LINE.test(line)) {
      if (wordCountOf(line) >= 3) out.push(clip(line));
      continue;
    }
    // "Understood. Next I will …": a next step may open a later sentence of the line.
    for (let at = sentenceEnd(line); at > 0 && at < line.length; ) {
      const rest = line.slice(at).trimStart();
      if (NEXT_LINE.test(rest)) {
        if (wordCountOf(rest) >= 3) out.push(clip(rest));
        break;
      }
      const more = sentenceEnd(rest);
      if (more < 0) break;
      at = line.length - rest.length + more;
    }
  }
  return out;
}

function clip(s: string): string {
  return s.length > 200 ? s.slice(0, 199) + "…" : s;
}

/**
 * Information weight of a user text: a letter or digit counts 1, a Han, Kana or Hangul syllable 3 (one
 * of them carries about what a short word does). Linear, no regex.
 */
export function textWeight(text: string): number {
  let w = 0;
  const n = Math.min(text.length, 4096);
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 0xc0 && c <= 0x24f)) w += 1;
    else if ((c >= 0x3040 && c <= 0x30ff) || (c >= 0x4e00 && c <= 0x9fff) || (c >= 0xac00 && c <= 0xd7a3)) w += 3;
    else if (c >= 0x370 && c < 0x3040) w += 1;
  }
  return w;
}

/** Below this weight a message is an acknowledgement or nudge ("ok", "yes", "go", "네", "ㅇㅇ"). */
export const BARE_WEIGHT = 6;

/**
 * A user message that carries nothing to keep: empty, a bare slash command ("/compact"), or an
 * acknowledgement too short to state anything. Decided by shape, not by a phrase list, so any language
 * and any phrasing of a decision, fact or reminder is kept.
 */
export function isBareMessage(text: string): boolean {
  const t = text.trim();
  if (t.length === 0) return true;
  if (t.startsWith("/") && !/\s/.test(t)) return true;
  return textWeight(t) < BARE_WEIGHT;
}

/**
 * The key two user messages are compared by: case folded, every run of whitespace, punctuation and
 * symbols one space, trimmed (so "Use pnpm!" and "use pnpm" are one statement). Bounded to the head.
 * Remembered per text: the statement ledger asks as each message is fed, so a summary's later questions
 * (merging, kept tail, echoes) are lookups.
 */
export const statementKey: (text: string) => string = memoizeText((text) => {
  const head = text.length > 4000 ? text.slice(0, 4000) : text;
  return head.toLowerCase().replace(/[\s\p{P}\p{S}]+/gu, " ").trim();
});
