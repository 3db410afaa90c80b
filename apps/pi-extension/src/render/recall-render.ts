// How recall results look in Pi's TUI (the context_recall / vcc_recall tool rows and the `/recall`
// message): the header line stands out, segment headers are dim, matching entries (`>`) are accented.
// Collapsed, a result shows its first lines and how many more there are; expanded, all of it.
import type { Theme } from "@earendil-works/pi-coding-agent";
import { Text } from "@earendil-works/pi-tui";

/** Lines shown before "… N more lines" in the collapsed view. */
export const COLLAPSED_LINES = 12;

export type Role = "title" | "segment" | "match" | "text" | "more" | "error";
export type Paint = (role: Role, text: string) => string;

/** The styled text (pure: `paint` decides what a role looks like). */
export function styleRecallText(text: string, expanded: boolean, paint: Paint, isError = false): string {
  // Trailing newlines dropped by a loop, not a regex: `\n+$` backtracks over every newline run.
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end -= 1;
  const lines = text.slice(0, end).split("\n");
  if (isError) return lines.map((line) => paint("error", line)).join("\n");
  const shown = expanded ? lines : lines.slice(0, COLLAPSED_LINES);
  const out = shown.map((line, i) => {
    if (i === 0) return paint("title", line);
    if (line.startsWith("--- ")) return paint("segment", line);
    if (line.startsWith("> ")) return paint("match", line);
    return paint("text", line);
  });
  if (shown.length < lines.length) out.push(paint("more", `… ${String(lines.length - shown.length)} more lines (expand to see all)`));
  return out.join("\n");
}

/** Pi's theme as a painter. */
export function themePaint(theme: Pick<Theme, "fg" | "bold">): Paint {
  return (role, text) => {
    switch (role) {
      case "title":
        return theme.bold(theme.fg("accent", text));
      case "segment":
        return theme.fg("dim", text);
      case "match":
        return theme.fg("accent", text);
      case "more":
        return theme.fg("muted", text);
      case "error":
        return theme.fg("error", text);
      default:
        return text;
    }
  };
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part: { type?: string; text?: string }) => (part.type === "text" ? (part.text ?? "") : "")).join("\n");
}

/** renderResult of the recall tools. */
export function renderRecallResult(
  result: { content: unknown; details?: unknown; isError?: boolean },
  options: { expanded: boolean; isPartial: boolean },
  theme: Theme,
): Text {
  if (options.isPartial) return new Text(theme.fg("muted", "recalling…"), 0, 0);
  // Our tools mark a failure with details.ok false (and isError, where Pi passes it through).
  const failed = result.isError === true || (result.details as { ok?: unknown } | undefined)?.ok === false;
  return new Text(styleRecallText(textOf(result.content), options.expanded, themePaint(theme), failed), 0, 0);
}

/** The message renderer of `/recall` results. */
export function renderRecallMessage(message: { content: unknown }, options: { expanded: boolean; outputPad: number }, theme: Theme): Text {
  return new Text(styleRecallText(textOf(message.content), options.expanded, themePaint(theme)), options.outputPad, 0);
}
