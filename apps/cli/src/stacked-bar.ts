// A stacked bar drawn in text: parts of one whole side by side, each its own fill character, widths by
// largest remainder so they always add up to the bar's width, with a legend of tokens and shares.
// Where the terminal takes colour each part also gets its own colour; the fill characters alone still
// tell the parts apart without it.
import { style, type Style } from "./output.js";

export interface BarPart {
  readonly label: string;
  readonly value: number;
}

const FILLS = ["█", "▓", "▒", "░", "#", "="];
const COLOURS: readonly Style[] = ["cyan", "yellow", "green", "magenta", "blue", "red"];

/** Widths (in characters) of each part: proportional, summing to `width`, a non-zero part at least 1. */
export function partWidths(values: readonly number[], width: number): number[] {
  const total = values.reduce((a, b) => a + Math.max(0, b), 0);
  if (total === 0) return values.map(() => 0);
  const exact = values.map((v) => (Math.max(0, v) / total) * width);
  const out = exact.map((x, i) => ((values[i] ?? 0) > 0 ? Math.max(1, Math.floor(x)) : 0));
  let left = width - out.reduce((a, b) => a + b, 0);
  // Largest remainders first (ties: the earlier part), so the drawing is deterministic.
  const order = exact.map((x, i) => ({ i, r: x - Math.floor(x) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; left > 0 && order.length > 0; k = (k + 1) % order.length) {
    const at = order[k]?.i ?? 0;
    if ((values[at] ?? 0) > 0) {
      out[at] = (out[at] ?? 0) + 1;
      left--;
    }
  }
  // A part forced up to 1 may overshoot: take back from the widest.
  while (left < 0) {
    const widest = out.indexOf(Math.max(...out));
    out[widest] = (out[widest] ?? 0) - 1;
    left++;
  }
  return out;
}

/** The bar line and one legend line per part. */
export function stackedBar(parts: readonly BarPart[], width = 60): string {
  const widths = partWidths(parts.map((p) => p.value), width);
  const total = parts.reduce((a, p) => a + Math.max(0, p.value), 0);
  const fill = (i: number, n: number): string => {
    const run = (FILLS[i % FILLS.length] ?? "#").repeat(n);
    return n === 0 ? run : style(run, COLOURS[i % COLOURS.length] ?? "cyan");
  };
  const bar = parts.map((_, i) => fill(i, widths[i] ?? 0)).join("");
  const legend = parts.map((p, i) => `  ${fill(i, 1)} ${p.label.padEnd(16)} ${String(p.value).padStart(9)} tokens ${total === 0 ? "" : `${String(Math.round((p.value / total) * 100)).padStart(3)}%`}`);
  return [`[${bar}]`, ...legend].join("\n");
}
