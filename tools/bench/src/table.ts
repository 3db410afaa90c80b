// Renders bench rows as one aligned table and fits the growth exponent of each case across sizes.
import type { BenchRow } from "./types.js";

export interface Exponent {
  readonly suite: string;
  readonly case: string;
  /** Least-squares slope of log(value) over log(size): 1 ≈ linear. */
  readonly exponent: number;
}

export function growthExponents(rows: readonly BenchRow[], sizeBytes: Readonly<Record<string, number>>): Exponent[] {
  const groups = new Map<string, { suite: string; case: string; points: [number, number][] }>();
  for (const row of rows) {
    const bytes = sizeBytes[row.size];
    if (bytes === undefined || row.value <= 0 || row.unit !== "ms") continue;
    const key = `${row.suite}\u0000${row.case}`;
    const group = groups.get(key) ?? { suite: row.suite, case: row.case, points: [] };
    group.points.push([Math.log(bytes), Math.log(row.value)]);
    groups.set(key, group);
  }
  const out: Exponent[] = [];
  for (const group of groups.values()) {
    if (group.points.length < 2) continue;
    const n = group.points.length;
    const mx = group.points.reduce((s, p) => s + p[0], 0) / n;
    const my = group.points.reduce((s, p) => s + p[1], 0) / n;
    const num = group.points.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0);
    const den = group.points.reduce((s, p) => s + (p[0] - mx) ** 2, 0);
    if (den > 0) out.push({ suite: group.suite, case: group.case, exponent: num / den });
  }
  return out;
}

function format(value: number): string {
  if (value >= 100) return value.toFixed(0);
  if (value >= 1) return value.toFixed(2);
  return value.toFixed(3);
}

export function renderTable(rows: readonly (BenchRow & { peakRssMb: number })[], exponents: readonly Exponent[]): string {
  const exp = new Map(exponents.map((e) => [`${e.suite}\u0000${e.case}`, e.exponent]));
  const header = ["suite", "case", "size", "value", "target", "growth", "peak RSS", "note"];
  const body = rows.map((r) => {
    const e = exp.get(`${r.suite}\u0000${r.case}`);
    return [r.suite, r.case, r.size, `${format(r.value)} ${r.unit}`, r.target ?? "", e === undefined ? "" : `n^${e.toFixed(2)}`, `${r.peakRssMb.toFixed(0)} MB`, r.note ?? ""];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => (row[i] ?? "").length)));
  const line = (cells: readonly string[]) => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join("  ").trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}
