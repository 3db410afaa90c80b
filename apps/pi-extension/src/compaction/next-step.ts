// The next step after a compaction, recovered from the facts before the cut: pending work first (the
// latest assistant plan, else an unresolved outstanding item), then the last user task, then the last
// correction. Pure.
import type { DurableArtifacts, SessionFacts } from "@context-fold/extractors";

/**
 * What the next step does after this compaction. `auto`: a turn starts on it only when nobody asked for
 * the compaction (Pi's threshold or overflow, or our gate) and a user is at the terminal (interactive
 * mode); after a compaction the user asked for, or in print/JSON mode, it is shown, not acted on.
 */
export function nextStepMode(configured: "off" | "advisory" | "autonomous" | "auto", automatic: boolean, interactive: boolean): "off" | "advisory" | "autonomous" {
  if (configured !== "auto") return configured;
  return automatic && interactive ? "autonomous" : "advisory";
}

export interface NextStep {
  readonly text: string;
  readonly source: "pending" | "task" | "correction";
}

/** Longest next-step line we surface (the rest is in the summary and recallable). */
export const NEXT_STEP_MAX = 400;

function clip(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= NEXT_STEP_MAX ? line : `${line.slice(0, NEXT_STEP_MAX - 1)}…`;
}

export function nextStep(facts: SessionFacts, artifacts: DurableArtifacts): NextStep | undefined {
  const planned = facts.status.nextSteps[0];
  if (planned !== undefined && planned.trim() !== "") return { text: clip(planned), source: "pending" };
  const open = facts.outstanding.find((item) => !item.resolved && item.severity === "ERROR");
  if (open !== undefined) return { text: clip(`fix: ${open.text}`), source: "pending" };
  if (facts.status.focusIndex !== null && facts.status.focus.trim() !== "") return { text: clip(facts.status.focus), source: "task" };
  const correction = artifacts.corrections[artifacts.corrections.length - 1];
  if (correction !== undefined) return { text: clip(correction.text), source: "correction" };
  return undefined;
}
