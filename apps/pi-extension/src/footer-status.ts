// The footer status Pi shows under the editor: `folded N · ~X tokens masked · Y% of window · next fold at Z%`.
// Built from parts so another surface (the memory count) can add its own; refreshed after every model
// call (when a fold may have happened), at session start, after an unfold and after a compaction.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { SessionRuntime } from "./session-runtime.js";

/** setStatus key of our footer entry. */
export const FOOTER_STATUS = "context-fold";

function percent(fraction: number): string {
  return `${String(Math.round(fraction * 100))}%`;
}

/** The footer's parts, in order. */
export function footerParts(runtime: SessionRuntime): string[] {
  const { folder } = runtime;
  const parts = [`folded ${String(folder.state.size)}`, `~${String(folder.maskedTokens())} tokens masked`];
  const usage = folder.lastUsage;
  if (usage !== undefined) parts.push(`${percent(usage.tokens / usage.contextWindow)} of window`);
  if (!folder.options.enabled) parts.push("folding off");
  else if (folder.blocked !== undefined && folder.target !== undefined) parts.push("new folds off");
  else parts.push(`next fold at ${percent(folder.options.threshold)}`);
  return parts;
}

export function footerText(runtime: SessionRuntime): string {
  return footerParts(runtime).join(" · ");
}

/** Show the footer (UI modes only). Never throws: a stale or missing UI is not our failure to report. */
export function showFooter(ctx: Pick<ExtensionContext, "ui" | "hasUI">, runtime: SessionRuntime): void {
  try {
    if (ctx.hasUI) ctx.ui.setStatus(FOOTER_STATUS, footerText(runtime));
  } catch {
    // the session went away; nothing to show
  }
}
