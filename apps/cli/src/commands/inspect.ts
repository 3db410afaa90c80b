// `context-fold inspect <session.jsonl>`: what the ledger reader makes of a Pi session file — version,
// entry counts, blocks, lineage, branch points, compactions with their #N segments, damaged lines.
// Reads only the session's shape (readSessionShape): no block text is held, blocks are counted, so a
// 1 GB session costs memory per entry, not per byte.
import { damageEffects, describeConsequence, type SessionShape } from "@context-fold/ledger-reader";
import type { Command } from "commander";
import { EXIT_FINDINGS, emit, setExit, style } from "../output.js";
import { damageFound, readSessionShapeForCli } from "../session-input.js";

function countBy<T>(items: readonly T[], key: (item: T) => string | undefined): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const item of items) {
    const k = key(item);
    if (k !== undefined) counts[k] = (counts[k] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function roleOf(raw: Readonly<Record<string, unknown>>): string | undefined {
  const message = raw["message"];
  if (raw["type"] !== "message" || typeof message !== "object" || message === null) return undefined;
  const role = (message as { role?: unknown }).role;
  return typeof role === "string" ? role : undefined;
}

/** The `--json` document (contract fields of issue 4, plus a few more). */
export function inspectJson(shape: SessionShape): Record<string, unknown> {
  const { session } = shape;
  return {
    file: session.path,
    sessionId: session.header.id,
    version: session.header.version,
    entries: session.entries.length,
    byType: countBy(session.entries, (e) => e.type),
    byRole: countBy(session.entries, (e) => roleOf(e.raw)),
    blocks: shape.blockCount,
    byKind: shape.blocksByKind,
    ...(session.header.fragment === true ? { fragment: true } : {}),
    lineage: { length: session.lineage.length, leafId: session.leafId },
    recoveredLineage: { length: session.recoveredLineageIds.size },
    branchPoints: session.branchPoints,
    roots: session.roots,
    compactions: session.compactions.map((c) => ({
      number: c.number,
      id: c.entryId,
      firstKeptEntryId: c.firstKeptEntryId,
      segment: c.segment,
      entries: c.entryIds.length,
      ...(c.tokensBefore === undefined ? {} : { tokensBefore: c.tokensBefore }),
    })),
    damaged: damageEffects(session).map(({ damage: d, consequences }) => ({
      line: d.line,
      byteOffset: d.byteOffset,
      kind: d.kind,
      reason: d.reason,
      recovered: d.recovered,
      ...(d.salvage === undefined ? {} : { salvaged: { ...d.salvage, text: undefined, textLength: d.salvage.text.length } }),
      consequences,
    })),
    byteLength: session.byteLength,
  };
}

function listCounts(counts: Record<string, number>): string {
  const parts = Object.entries(counts).map(([k, n]) => `${k} ${String(n)}`);
  return parts.length === 0 ? "none" : parts.join(", ");
}

export function inspectText(shape: SessionShape): string {
  const { session } = shape;
  const h = session.header;
  const json = inspectJson(shape);
  const lines = [
    `${style(session.path, "bold")}`,
    `session ${h.id}, format v${String(h.version)}${h.version < 3 ? " (migrated to v3 in memory; file untouched)" : ""}${typeof h.raw["version"] === "number" && h.raw["version"] > 3 ? ` (the header declares v${String(h.raw["version"])}, newer than this reader knows; read as v3)` : ""}`,
    `entries ${String(session.entries.length)}: ${listCounts(json["byType"] as Record<string, number>)}`,
    `roles: ${listCounts(json["byRole"] as Record<string, number>)}`,
    `blocks ${String(shape.blockCount)}: ${listCounts(json["byKind"] as Record<string, number>)}`,
    `lineage ${String(session.lineage.length)} entries, leaf ${session.leafId ?? "(none)"} (Pi's view)${session.recoveredLineageIds.size === session.lineageIds.size ? "" : `; ${String(session.recoveredLineageIds.size)} entries with what Pi drops (recall searches these)`}`,
    `branch points: ${session.branchPoints.length === 0 ? "none" : session.branchPoints.join(", ")}`,
    `roots: ${session.roots.join(", ")}`,
  ];
  if (session.compactions.length === 0) lines.push("compactions: none on the lineage");
  for (const c of session.compactions) {
    const range = c.segment === null ? "no blocks" : `#${String(c.segment.from)}–#${String(c.segment.to)}`;
    lines.push(`compaction ${String(c.number)}: ${c.entryId}, kept from ${c.firstKeptEntryId ?? "(none)"}, summarized ${range} (${String(c.entryIds.length)} entries)`);
  }
  if (session.damaged.length === 0) lines.push("damaged lines: none");
  for (const { damage: d, consequences } of damageEffects(session)) {
    const state = d.recovered ? style("recovered", "green") : style("not recovered", "red");
    lines.push(`damaged line ${String(d.line)} (byte ${String(d.byteOffset)}): ${d.kind}, ${state}: ${d.reason}`);
    const s = d.salvage;
    if (s !== undefined) {
      const fields = [s.type, s.id === undefined ? undefined : `id ${s.id}`, s.parentId === undefined ? undefined : `parent ${s.parentId}`, s.role].filter((x) => x !== undefined);
      lines.push(`  salvaged: ${fields.length === 0 ? "" : `${fields.join(", ")}; `}${String(s.text.length)} characters of text (searchable as line ${String(d.line)} (salvaged))`);
    }
    for (const c of consequences) lines.push(`  → ${describeConsequence(c)}`);
  }
  return lines.join("\n");
}

export function registerInspect(program: Command): void {
  program
    .command("inspect")
    .description("Show how a Pi session file reads: version, entries, blocks, lineage, branches, compactions, damage (never writes it)")
    .argument("<session>", "Pi session file (.jsonl)")
    .option("--json", "print one JSON document")
    .option("--fragment", "read a file without a session header (a fragment Pi refuses) as fragment-<sha256 prefix>")
    .action(async (file: string, options: { json?: boolean; fragment?: boolean }) => {
      const shape = await readSessionShapeForCli(file, { warnDamage: false, fragment: options.fragment === true });
      const session = shape.session;
      emit(options.json === true, inspectJson(shape), () => inspectText(shape));
      // inspect checks: any damage (recovered or not) is a finding, as for verify.
      if (damageFound(session).length > 0 || session.header.fragment === true) setExit(EXIT_FINDINGS);
    });
}
