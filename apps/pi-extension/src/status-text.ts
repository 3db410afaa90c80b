// The text `/context-fold` shows: folds, tokens masked, usage and when the next fold fires.
import { thresholdTokens } from "./fold/fold-planner.js";
import type { SessionRuntime } from "./session-runtime.js";

function pct(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

export function statusText(runtime: SessionRuntime): string {
  const { folder, failures } = runtime;
  const state = folder.state;
  const lines = [`context-fold: ${String(state.size)} blocks folded in ${String(state.events)} fold events; ~${String(folder.maskedTokens())} tokens masked.`];
  const usage = folder.lastUsage;
  if (usage === undefined) lines.push("Usage: not known yet (no model call seen in this session).");
  else {
    const next = thresholdTokens(usage.contextWindow, folder.options);
    const now = `${String(Math.round(usage.tokens))} / ${String(usage.contextWindow)} tokens (${pct(usage.tokens / usage.contextWindow)})${usage.estimated ? ", estimated" : ""}`;
    lines.push(`Usage at the last model call: ${now}.`);
    lines.push(
      usage.tokens >= next
        ? `Next fold: when at least ${pct(folder.options.minFoldFraction)} of the window is foldable outside the protected tail.`
        : `Next fold: at ${String(next)} tokens (${pct(folder.options.threshold)} of the window); cap at ${pct(folder.options.cap)}.`,
    );
  }
  if (!folder.options.enabled) lines.push("Folding is disabled (CONTEXT_FOLD_ENABLED).");
  if (folder.blocked !== undefined) lines.push(`New folds are off: ${folder.blocked}.`);
  if (runtime.seedIndex !== undefined) lines.push(`Seed index: ${runtime.seedIndex}`);
  const recent = state.spans().slice(-10);
  if (recent.length > 0) {
    lines.push("Folded (latest 10; `/context-fold unfold <code>` restores one):");
    for (const span of recent) lines.push(`  ${span.code}  ${span.kind === "thinking" ? "thinking" : (span.tool ?? "tool")}  ${String(span.bytes)} bytes  turn ${String(span.turn)}  seq ${String(span.seq)}`);
  }
  const failure = failures.last;
  if (failure !== undefined) lines.push(`Last failure (${String(failures.failures.length)} in all): ${failure.where}: ${failure.message}`);
  return lines.join("\n");
}
