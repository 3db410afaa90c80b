// Scores gardener actions against the example bank's ground truth (by memory text): precision and recall
// per cluster kind, and the set of texts that may legitimately be invalidated.
import type { ExampleBankTruth, MemberAction } from "@context-fold/memory-gardener-client";

export interface KindScore {
  readonly found: number;
  readonly expected: number;
  readonly truePositives: number;
  readonly precision: number;
  readonly recall: number;
}

export interface BankScore {
  readonly near_duplicate: KindScore;
  readonly contradiction: KindScore;
  readonly expired_ephemera: KindScore;
}

function score(found: ReadonlySet<string>, expected: ReadonlySet<string>): KindScore {
  let tp = 0;
  for (const t of found) if (expected.has(t)) tp++;
  return {
    found: found.size,
    expected: expected.size,
    truePositives: tp,
    precision: found.size === 0 ? 1 : tp / found.size,
    recall: expected.size === 0 ? 1 : tp / expected.size,
  };
}

/** Member-level scoring: a text counts as found for a kind when the gardener put it in a cluster of that kind. */
export function scoreActions(actions: readonly MemberAction[], truth: ExampleBankTruth): BankScore {
  const by = (kind: MemberAction["kind"]): Set<string> => new Set(actions.filter((a) => a.kind === kind).map((a) => a.text));
  return {
    near_duplicate: score(by("near_duplicate"), new Set(truth.duplicateGroups.flat())),
    contradiction: score(by("contradiction"), new Set(truth.contradictionGroups.flat())),
    expired_ephemera: score(by("expired_ephemera"), new Set(truth.expiredEphemera)),
  };
}

export function formatScore(label: string, s: BankScore): string {
  const row = (k: keyof BankScore): string => {
    const v = s[k];
    return `  ${k.padEnd(17)} found ${String(v.found).padStart(4)}  expected ${String(v.expected).padStart(4)}  precision ${v.precision.toFixed(3)}  recall ${v.recall.toFixed(3)}`;
  };
  return [`${label}:`, row("near_duplicate"), row("contradiction"), row("expired_ephemera")].join("\n");
}
