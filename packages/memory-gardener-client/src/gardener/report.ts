// Phase 5: read the phase files and produce the report (the contract JSON plus context) and its
// human rendering, with the contradictions a human must review in their own section.
import { readApply } from "./apply.js";
import { readActions } from "./judge-phase.js";
import { phasePaths, writeFileAtomic, writeJsonAtomic } from "./phase-files.js";
import { readManifest } from "./shards.js";
import type { ClusterKind, GardenAction, GardenerReport, GardenerReportJson, ReportExample, SamplingMode } from "./types.js";

export const EXAMPLES_PER_ACTION = 5;

export interface ReportOptions {
  readonly outDir: string;
  readonly bankId: string;
  readonly mode: SamplingMode;
  readonly now: string;
  readonly apply: boolean;
  readonly cap: number;
}

/** Build the report from the phase files (pure over their content). */
export function buildReport(options: ReportOptions): GardenerReport {
  const manifest = readManifest(options.outDir);
  const actionsFile = readActions(options.outDir);
  const applyFile = options.apply ? readApply(options.outDir) : undefined;
  const clusters: Record<ClusterKind, number> = { near_duplicate: 0, contradiction: 0, expired_ephemera: 0 };
  for (const c of actionsFile.clusters) clusters[c.kind]++;
  const actions: Record<GardenAction, number> = { keep: 0, supersede: 0, expire: 0, flag_contradiction: 0 };
  for (const a of actionsFile.actions) actions[a.action]++;

  const flagged = new Set(actionsFile.actions.filter((a) => a.action === "flag_contradiction").map((a) => a.id));
  const contradictions = actionsFile.clusters
    .filter((c) => c.members.some((m) => flagged.has(m.id)))
    .map((c) => ({ members: c.members.map((m) => ({ id: m.id, text: m.text })) }));

  const examples: ReportExample[] = [];
  for (const kind of ["supersede", "expire"] as const) {
    for (const a of actionsFile.actions.filter((x) => x.action === kind).slice(0, EXAMPLES_PER_ACTION)) {
      examples.push({ id: a.id, action: a.action, text: a.text, reason: a.reason, ...(a.survivorId === undefined ? {} : { survivorId: a.survivorId }) });
    }
  }
  return {
    manifest: { total: manifest.total, fetched: manifest.fetched, shardCount: manifest.shards.length },
    clusters,
    actions,
    applied: applyFile?.applied.length ?? 0,
    failedApply: applyFile?.failedApply ?? [],
    contradictions,
    context: {
      bankId: options.bankId,
      mode: options.mode,
      now: options.now,
      apply: options.apply,
      cap: options.cap,
      deferred: applyFile?.deferred ?? 0,
      run: applyFile === undefined ? null : { number: applyFile.run, resumed: applyFile.resumed, attempted: applyFile.attempted.length, ledger: applyFile.ledger },
      judge: actionsFile.judge,
      examples,
    },
  };
}

/** The contract JSON: exactly `{manifest, clusters, actions, applied, failedApply, contradictions}`. */
export function reportJson(report: GardenerReport): GardenerReportJson {
  return {
    manifest: { total: report.manifest.total, fetched: report.manifest.fetched, shardCount: report.manifest.shardCount },
    clusters: { near_duplicate: report.clusters.near_duplicate, contradiction: report.clusters.contradiction, expired_ephemera: report.clusters.expired_ephemera },
    actions: { keep: report.actions.keep, supersede: report.actions.supersede, expire: report.actions.expire, flag_contradiction: report.actions.flag_contradiction },
    applied: report.applied,
    failedApply: report.failedApply.map((f) => ({ id: f.id, status: f.status, detail: f.detail })),
    contradictions: report.contradictions.map((c) => ({ members: c.members.map((m) => ({ id: m.id, text: m.text })) })),
  };
}

function oneLine(text: string, max = 100): string {
  const flat = text.replaceAll("\n", " ");
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The human-readable summary. */
export function renderReport(report: GardenerReport): string {
  const c = report.context;
  const lines: string[] = [];
  lines.push(`Memory gardener — bank ${c.bankId} (mode ${c.mode}, now ${c.now}, judge ${c.judge})`);
  if (report.manifest.total === 0) lines.push("The bank holds no valid memory: nothing to garden.");
  if (!c.apply) lines.push("Apply: off (report only; nothing was changed)");
  else if (c.run === null) lines.push(`Apply: on (cap ${c.cap} memories per run)`);
  else {
    lines.push(`Apply: on — run ${c.run.number}${c.run.resumed ? " (resumed after an interruption)" : ""}, ${c.run.attempted} of its cap of ${c.cap} memories attempted so far`);
    lines.push(`Run ledger: ${c.run.ledger}`);
  }
  lines.push("");
  lines.push(`Manifest: ${report.manifest.fetched} memories gardened of ${report.manifest.total} seen, ${report.manifest.shardCount} shard(s)`);
  lines.push(`Clusters: ${report.clusters.near_duplicate} near-duplicate, ${report.clusters.contradiction} contradiction, ${report.clusters.expired_ephemera} expired ephemera`);
  lines.push(`Actions: ${report.actions.keep} keep, ${report.actions.supersede} supersede, ${report.actions.expire} expire, ${report.actions.flag_contradiction} flag_contradiction`);
  if (c.apply) {
    lines.push(`Applied: ${report.applied} (verified by re-GET)${report.failedApply.length > 0 ? `, failed: ${report.failedApply.length}` : ""}${c.deferred > 0 ? `, deferred by the cap: ${c.deferred}` : ""}`);
  }
  if (report.failedApply.length > 0) {
    lines.push("");
    lines.push("Failed apply (not counted as applied):");
    for (const f of report.failedApply) lines.push(`  - ${f.id}: HTTP ${f.status === 0 ? "none" : f.status} — ${oneLine(f.detail, 160)}`);
  }
  if (c.examples.length > 0) {
    lines.push("");
    lines.push("Notable examples:");
    for (const e of c.examples) {
      lines.push(e.action === "supersede"
        ? `  - supersede ${e.id} → ${e.survivorId ?? "?"}: "${oneLine(e.text)}"`
        : `  - expire ${e.id}: "${oneLine(e.text)}"`);
    }
  }
  lines.push("");
  lines.push("Contradictions flagged (human review required):");
  if (report.contradictions.length === 0) lines.push("  (none)");
  report.contradictions.forEach((k, i) => {
    lines.push(`  ${i + 1}.`);
    for (const m of k.members) lines.push(`     - ${m.id}: "${oneLine(m.text)}"`);
  });
  lines.push("  Memories are claims about what was true when they were made; the gardener never picks a winner.");
  return `${lines.join("\n")}\n`;
}

/** Phase 5. Writes `report.json` (the contract JSON plus context) and `report.txt`. */
export function runReportPhase(options: ReportOptions): GardenerReport {
  const report = buildReport(options);
  const paths = phasePaths(options.outDir);
  writeJsonAtomic(paths.reportJson, report);
  writeFileAtomic(paths.reportText, renderReport(report));
  return report;
}
