// The footer status Pi shows under the editor: `folded N · ~X tokens masked · Y% of window · next fold at Z%`.
// Built from parts so another surface (the memory count: `… · 3 memories recalled`) adds its own through
// `setFooterPart` instead of a status key of its own; refreshed after every model
// call (when a fold may have happened), at session start, after an unfold and after a compaction.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { SessionRuntime } from "./session-runtime.js";

/** setStatus key of our footer entry. */
export const FOOTER_STATUS = "context-fold";

function percent(fraction: number): string {
  return `${String(Math.round(fraction * 100))}%`;
}

/** A part another surface adds after ours; undefined: nothing to show this time. */
export type FooterPart = () => string | undefined;

// Per session (a new session gets a new runtime, so a stale part never shows), by name so adding twice replaces.
const extraParts = new WeakMap<SessionRuntime, Map<string, FooterPart>>();

/** Add (or replace) a named part shown after ours for this session; it is asked each time the footer is drawn. */
export function setFooterPart(runtime: SessionRuntime, name: string, part: FooterPart): void {
  const parts = extraParts.get(runtime) ?? new Map<string, FooterPart>();
  parts.set(name, part);
  extraParts.set(runtime, parts);
}

/** The footer's parts, in order: ours, then the ones other surfaces added. */
export function footerParts(runtime: SessionRuntime): string[] {
  const { folder } = runtime;
  const parts = [`folded ${String(folder.state.size)}`, `~${String(folder.maskedTokens())} tokens masked`];
  const usage = folder.lastUsage;
  if (usage !== undefined) parts.push(`${percent(usage.tokens / usage.contextWindow)} of window`);
  if (!folder.options.enabled) parts.push("folding off");
  else if (folder.blocked !== undefined && folder.target !== undefined) parts.push("new folds off");
  else parts.push(`next fold at ${percent(folder.options.threshold)}`);
  for (const part of extraParts.get(runtime)?.values() ?? []) {
    const text = part();
    if (text !== undefined && text !== "") parts.push(text);
  }
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
