// The claim model the judge reasons over: a memory claims that a subject's attribute (the sentence frame,
// value slots abstracted) has a value, affirmed or negated, at a time. Two claims on the same frame with
// different values or opposite polarity disagree; a restatement needs the same values and polarity.
// This is the one home of that rule: clustering, the judge's guard and apply's assertion all call it.
import { analyzeText, isSubsetEither, jaccard, stem, type ClaimValue, type Polarity, type TextAnalysis, type ValueKind } from "./text-analysis.js";

export interface Claim {
  /** Subject + attribute: the frame's content words, values abstracted (sorted, unique). */
  readonly frame: readonly string[];
  /** The current values, sorted. */
  readonly values: readonly ClaimValue[];
  /** Values the sentence marks as previous ("up from 5", "instead of MySQL"). */
  readonly prior: readonly ClaimValue[];
  readonly polarity: Polarity;
  readonly environments: readonly string[];
  /** When the claim was made (the memory's date), if known. */
  readonly time: string | null;
}

export type ClaimRelation =
  | { readonly kind: "same"; readonly evidence: string }
  | { readonly kind: "conflict"; readonly evidence: string }
  | null;

/** A supersede between claims that differ in value or polarity was about to happen: a bug, never data. */
export class ClaimInvariantError extends Error {
  readonly code = "CLAIM_INVARIANT" as const;
  constructor(message: string) {
    super(message);
    this.name = "ClaimInvariantError";
  }
}

/**
 * The claims of two memories, compared together: a capitalized sentence-initial word ("Priya owns …",
 * "Billing service version: …") is a name when the other memory names someone or something in the same
 * frame, and a frame word otherwise.
 */
export function claimPair(a: TextAnalysis, b: TextAnalysis, times: readonly [string | null, string | null] = [null, null]): readonly [Claim, Claim] {
  return [resolve(a, b, times[0]), resolve(b, a, times[1])];
}

function resolve(self: TextAnalysis, other: TextAnalysis, time: string | null): Claim {
  const frame = new Set(self.subject);
  const values = new Map(self.values.map((v) => [valueKey(v), v] as const));
  const otherFrame = new Set(other.subject);
  const otherAmbiguous = new Set(other.ambiguous.map(stem));
  const selfFrame = new Set(self.subject);
  const selfAmbiguous = new Set(self.ambiguous.map(stem));
  // The word is a name when the other memory offers a name slot (an entity value, or a sentence-initial
  // word of its own that is not a word of this memory's frame) in the same frame, with the same other
  // value kinds: then the word fills that slot. "Replicas of X: 7" next to "X's database is MySQL" has
  // a number the other lacks, so "Replicas" stays a frame word.
  const otherHasName = other.values.some((v) => v.kind === "entity") || other.ambiguous.some((w) => !selfFrame.has(stem(w)) && !selfAmbiguous.has(stem(w)));
  const nested = isSubsetEither(self.subject, other.subject);
  const sameKinds = kindsOf(self.values) === kindsOf(other.values);
  for (const word of self.ambiguous) {
    if (!otherFrame.has(stem(word)) && !otherAmbiguous.has(stem(word)) && otherHasName && nested && sameKinds) {
      values.set(valueKey({ kind: "entity", value: word }), { kind: "entity", value: word });
    } else frame.add(stem(word));
  }
  return {
    frame: [...frame].sort(),
    values: [...values.values()].sort(byKindValue),
    prior: self.prior,
    polarity: self.polarity,
    environments: self.environments,
    time,
  };
}

/** The entity values in text order, a sentence-initial name first (it is the grammatical subject). */
function entityOrder(self: TextAnalysis, claim: Claim): string[] {
  const names = claim.values.filter((v) => v.kind === "entity").map((v) => v.value);
  const initial = self.ambiguous.filter((w) => names.includes(w));
  return [...initial, ...self.entityOrder];
}

/** How two memories' claims relate: the same claim restated, a conflict, or unrelated (null). */
export function relateClaims(a: TextAnalysis, b: TextAnalysis): ClaimRelation {
  const [ca, cb] = claimPair(a, b);
  if (ca.frame.length === 0 || cb.frame.length === 0) return null;
  // A claim about staging is not a claim about prod.
  if (ca.environments.join(",") !== cb.environments.join(",")) return null;
  const sameValues = valuesEqual(ca.values, cb.values);
  const samePolarity = ca.polarity === cb.polarity;
  const tokensA = [...ca.frame, ...ca.values.map(valueKey)].sort();
  const tokensB = [...cb.frame, ...cb.values.map(valueKey)].sort();
  // Same frame: one is the other plus qualifiers. A substitution (billing ↔ search) is another subject.
  const sameFrame = jaccard(ca.frame, cb.frame) >= 0.5 && isSubsetEither(ca.frame, cb.frame);
  if (!sameFrame) {
    // A long sentence restated with one filler word changed: identical claim, nearly identical words.
    if (sameValues && samePolarity && jaccard(tokensA, tokensB) >= 0.85) return { kind: "same", evidence: "same claim restated (near-identical wording)" };
    return null;
  }
  const frameText = (ca.frame.length <= cb.frame.length ? ca.frame : cb.frame).join(" ");
  // "Project Zeta uses Postgres" / "Project Eta uses MySQL": when both name several entities, the first
  // one names the subject; a different first name is a different subject, not a different value.
  const orderA = entityOrder(a, ca);
  const orderB = entityOrder(b, cb);
  if (orderA.length >= 2 && orderB.length >= 2 && orderA[0] !== orderB[0]) return null;
  if (!samePolarity) {
    return { kind: "conflict", evidence: `same ${frameText}, opposite polarity: ${describe(ca)} vs ${describe(cb)}` };
  }
  const conflict = conflictingKind(ca.values, cb.values);
  if (conflict !== undefined) {
    return { kind: "conflict", evidence: `same ${frameText}, different ${conflict.kind}: ${conflict.a.join(", ")} vs ${conflict.b.join(", ")}` };
  }
  const revoked = overlap(ca.prior, cb.values) ?? overlap(cb.prior, ca.values);
  if (revoked !== undefined) {
    return { kind: "conflict", evidence: `same ${frameText}: ${revoked.value} is current in one and previous in the other` };
  }
  if (sameValues && jaccard(tokensA, tokensB) >= 0.5) return { kind: "same", evidence: `same claim restated (${frameText})` };
  return null;
}

/** True when a memory with `loser`'s text may be superseded by one with `survivor`'s: same values, same polarity. */
export function canSupersede(loserText: string, survivorText: string): boolean {
  const [loser, survivor] = claimPair(analyzeText(loserText), analyzeText(survivorText));
  return loser.polarity === survivor.polarity && valuesEqual(loser.values, survivor.values);
}

/** The assertion apply makes before every supersede PATCH. */
export function assertSupersedable(loserText: string, survivorText: string): void {
  if (!canSupersede(loserText, survivorText)) {
    throw new ClaimInvariantError(`refusing to supersede "${loserText}" by "${survivorText}": their claims differ in value or polarity (a dispute is flagged, never resolved)`);
  }
}

/** The value kinds other than entity, as one string. */
function kindsOf(values: readonly ClaimValue[]): string {
  return [...new Set(values.filter((v) => v.kind !== "entity").map((v) => v.kind))].sort().join(",");
}

function describe(c: Claim): string {
  const values = c.values.map((v) => v.value).join(", ");
  return `${c.polarity === "negated" ? "not " : ""}${values === "" ? "(no value)" : values}`;
}

function valueKey(v: ClaimValue): string {
  return `${v.kind}=${v.value}`;
}

function byKindValue(x: ClaimValue, y: ClaimValue): number {
  const kx = valueKey(x);
  const ky = valueKey(y);
  return kx < ky ? -1 : kx > ky ? 1 : 0;
}

function valuesEqual(a: readonly ClaimValue[], b: readonly ClaimValue[]): boolean {
  return a.length === b.length && a.every((v, i) => valueKey(v) === valueKey(b[i] as ClaimValue));
}

function byKind(values: readonly ClaimValue[]): Map<ValueKind, string[]> {
  const out = new Map<ValueKind, string[]>();
  for (const v of values) {
    const list = out.get(v.kind);
    if (list === undefined) out.set(v.kind, [v.value]);
    else list.push(v.value);
  }
  return out;
}

/** The first kind both claims fill with sets neither of which contains the other. */
function conflictingKind(a: readonly ClaimValue[], b: readonly ClaimValue[]): { kind: ValueKind; a: string[]; b: string[] } | undefined {
  const ka = byKind(a);
  const kb = byKind(b);
  for (const [kind, va] of ka) {
    const vb = kb.get(kind);
    if (vb === undefined) continue;
    const sa = new Set(va);
    const sb = new Set(vb);
    if (!va.every((x) => sb.has(x)) && !vb.every((x) => sa.has(x))) return { kind, a: va, b: vb };
  }
  return undefined;
}

function overlap(prior: readonly ClaimValue[], current: readonly ClaimValue[]): ClaimValue | undefined {
  const keys = new Set(current.map(valueKey));
  return prior.find((v) => keys.has(valueKey(v)));
}
