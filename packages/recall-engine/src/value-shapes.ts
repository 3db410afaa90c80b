// The kind of value a question asks for. "Which version…", "what hash…", "what colours…" name the
// form of their answer: a block holding a value of that form (`2024.04.09`, `5e5bdad`, `#8abeb7`) answers
// it, where a block only talking about versions, hashes or colours does not. The asking words are a
// short list (a last resort, tested against questions that name none); the forms are read from the
// block's own terms, by character class, never by a backtracking pattern. "What error…", "why did …
// fail" ask for a failure: a tool output that failed (an error result, a non-zero exit code) answers
// it, where prose about errors does not; that form is read from the block's structure, not its text.
import type { QueryTerm } from "./tokenizer.js";
import { stemOf } from "./stem.js";
import { tokenize } from "./tokenizer.js";

export type ValueShape = "version" | "hash" | "color" | "failure";

/** Question words (as typed or by stem) that ask for a value of a form. */
const ASKING = new Map<string, ValueShape>([
  ["version", "version"],
  ["hash", "hash"],
  ["sha", "hash"],
  ["color", "color"],
  ["colour", "color"],
  ["hex", "color"],
  ["error", "failure"],
  ["fail", "failure"],
  ["failure", "failure"],
]);

/** The forms of value `terms` ask for (each once, in the query's order); empty for most questions. */
export function askedShapes(terms: readonly QueryTerm[]): ValueShape[] {
  const out: ValueShape[] = [];
  for (const t of terms) {
    const shape = ASKING.get(t.primary) ?? ASKING.get(stemOf(t.primary) ?? "");
    if (shape !== undefined && !out.includes(shape)) out.push(shape);
  }
  return out;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isHexLetter(c: number): boolean {
  return c >= 97 && c <= 102;
}

/** `1.2`, `0.23.2`, `v5.2.0`, `2024.04.09`: numbers joined by single dots, an optional leading `v`. */
function isVersion(term: string): boolean {
  let i = term.charCodeAt(0) === 118 ? 1 : 0;
  let groups = 0;
  while (i < term.length) {
    const start = i;
    while (i < term.length && isDigit(term.charCodeAt(i))) i++;
    if (i === start) return false;
    groups++;
    if (i === term.length) break;
    if (term.charCodeAt(i) !== 46) return false;
    i++;
    if (i === term.length) return false;
  }
  return groups >= 2;
}

/** Hex of `min`…`max` characters holding both a digit and a letter (`5e5bdad`, `b5bd68`; not `123456`, `facade`). */
function isHex(term: string, min: number, max: number): boolean {
  if (term.length < min || term.length > max) return false;
  let digit = false;
  let letter = false;
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i);
    if (isDigit(c)) digit = true;
    else if (isHexLetter(c)) letter = true;
    else return false;
  }
  return digit && letter;
}

/** A term of the form: a version; a hash (7 to 40 hex); a colour (6 hex, the `#` is not part of a term). */
function hasShape(term: string, shape: ValueShape): boolean {
  if (shape === "version") return isVersion(term);
  if (shape === "hash") return isHex(term, 7, 40);
  if (shape === "color") return isHex(term, 6, 6);
  return false;
}

/**
 * Whether a block answers in one of `shapes`: `failed` (the block is a failed tool output) for a
 * failure, else a term of the form in `text` (one tokenizer pass, made only when a text form is asked).
 */
export function holdsShape(text: () => string, failed: boolean, shapes: readonly ValueShape[]): boolean {
  if (failed && shapes.includes("failure")) return true;
  if (shapes.length === 1 && shapes[0] === "failure") return false;
  let held = false;
  tokenize(text(), (term) => {
    if (!held && shapes.some((shape) => hasShape(term, shape))) held = true;
  });
  return held;
}
