// Argument completion for `/context-fold`: its subcommands, and after `unfold ` the codes of the
// folded blocks (newest first) with what each one was. Pi's editor replaces the whole argument text with
// an item's value, so each value is the full argument.
import type { AutocompleteItem } from "@earendil-works/pi-tui";
import type { FoldedSpan } from "./fold/fold-state.js";

export const FOLD_SUBCOMMANDS: readonly { readonly name: string; readonly description: string }[] = [
  { name: "status", description: "folds, tokens masked, usage and the next fold" },
  { name: "unfold", description: "send a folded block verbatim again: unfold <code>" },
  { name: "compact", description: "compact now through context-fold's summary" },
];

/** Most codes offered at once (the newest folds). */
export const MAX_CODE_ITEMS = 30;

export function foldCompletions(prefix: string, spans: readonly FoldedSpan[]): AutocompleteItem[] | null {
  const text = prefix.trimStart();
  const unfold = /^unfold\s+(\S*)$/.exec(text);
  if (unfold !== null) {
    const start = unfold[1] ?? "";
    const items = spans
      .filter((span) => span.code.startsWith(start))
      .slice(-MAX_CODE_ITEMS)
      .reverse()
      .map((span) => ({
        value: `unfold ${span.code}`,
        label: span.code,
        description: `${span.kind === "thinking" ? "thinking" : (span.tool ?? "tool output")}, ${String(span.bytes)} bytes, turn ${String(span.turn)}`,
      }));
    return items.length === 0 ? null : items;
  }
  if (/\s/.test(text)) return null;
  const items = FOLD_SUBCOMMANDS.filter((s) => s.name.startsWith(text)).map((s) => ({ value: s.name === "unfold" ? "unfold " : s.name, label: s.name, description: s.description }));
  return items.length === 0 ? null : items;
}
