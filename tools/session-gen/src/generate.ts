// generateSession: plans the structure of a session (branches, compactions, edits, needles, errors),
// has Pi's SessionManager write it under a seeded id source and clock, then grows and damages it.
import { mkdtempSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { applyDamage } from "./damage.js";
import type { GenerateOptions, Manifest, Needle } from "./manifest.js";
import { SeededRandom } from "./random.js";
import { replicate, REPLICATION_BASE_BYTES, REPLICATION_THRESHOLD_BYTES } from "./replicate.js";
import { withSeededPi, type SeededClock } from "./seeded-pi.js";
import { SessionWriter } from "./session-writer.js";

export const DEFAULT_CWD = "/home/dev/project";
export const DEFAULT_START_TIME = "2026-03-01T09:00:00.000Z";
const COMPACTION_EVERY_BYTES = 400 * 1024;
/** Bytes the final "run everything" turn adds, so the loop can stop short of the target. */
const FINAL_TURN_BYTES = 12 * 1024;

export class GenerateOptionsError extends Error {
  readonly code = "E_GEN_OPTIONS" as const;
  constructor(message: string) {
    super(message);
    this.name = "GenerateOptionsError";
  }
}

function sessionIdFor(rng: SeededRandom, startMs: number): string {
  // uuidv7 layout, as Pi's own ids: 48-bit ms time, version 7, variant 10xx.
  const time = startMs.toString(16).padStart(12, "0");
  const rest = rng.hex(19);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${rest.slice(0, 3)}-${"89ab"[rng.int(0, 3)] ?? "8"}${rest.slice(3, 6)}-${rest.slice(6, 18)}`;
}

function validate(options: GenerateOptions): void {
  if (!Number.isInteger(options.seed)) throw new GenerateOptionsError(`seed must be an integer, got ${String(options.seed)}`);
  if (options.turns !== undefined && (!Number.isInteger(options.turns) || options.turns < 2)) throw new GenerateOptionsError(`turns must be an integer >= 2, got ${String(options.turns)}`);
  if (options.size !== undefined && (!Number.isFinite(options.size) || options.size < 10_000)) throw new GenerateOptionsError(`size must be at least 10000 bytes, got ${String(options.size)}`);
  const r = options.replication;
  if (r !== undefined && !(r.baseBytes >= 10_000 && r.thresholdBytes >= r.baseBytes)) throw new GenerateOptionsError(`replication needs baseBytes >= 10000 and thresholdBytes >= baseBytes`);
  if (options.startTime !== undefined && Number.isNaN(Date.parse(options.startTime))) throw new GenerateOptionsError(`startTime must be an ISO time, got ${options.startTime}`);
}

/** Writes a session to `outFile` (overwritten) and returns its ground truth. */
export async function generateSession(outFile: string, options: GenerateOptions): Promise<Manifest> {
  validate(options);
  const target = options.size;
  const threshold = options.replication?.thresholdBytes ?? REPLICATION_THRESHOLD_BYTES;
  const replicated = target !== undefined && target > threshold;
  const baseTarget = replicated ? Math.min(target, options.replication?.baseBytes ?? REPLICATION_BASE_BYTES) : target;
  const turnsTarget = options.turns ?? (target === undefined ? 40 : undefined);
  const compactionCount =
    options.compactions ?? Math.max(Math.floor((baseTarget ?? 0) / COMPACTION_EVERY_BYTES), (turnsTarget ?? 0) >= 30 ? 1 : 0);
  const startMs = Date.parse(options.startTime ?? DEFAULT_START_TIME);

  const rng = new SeededRandom(options.seed, 1);
  const ids = new SeededRandom(options.seed, 2);
  const clock: SeededClock = { now: startMs };
  const sessionId = sessionIdFor(new SeededRandom(options.seed, 3), startMs);

  const finalPath = resolve(outFile);
  // Pi names the file itself inside its session dir; we let it write in a scratch dir beside the
  // target and rename, so the bytes are exactly Pi's.
  const scratch = mkdtempSync(join(dirname(finalPath), ".session-gen-"));
  try {
    const writer = withSeededPi(ids, clock, () => {
      const sm = SessionManager.create(options.cwd ?? DEFAULT_CWD, scratch, { id: sessionId });
      const file = sm.getSessionFile();
      if (file === undefined) throw new GenerateOptionsError("Pi did not name a session file");
      const scale = baseTarget === undefined ? 1 : Math.min(1, Math.max(0.15, baseTarget / (1024 * 1024)));
      const w = new SessionWriter(sm, rng, clock, file, scale);
      runPlan(w, { baseTarget, turnsTarget, compactionCount, options, ids });
      return { w, sm, file };
    });
    renameSync(writer.file, finalPath);
    return await finish(finalPath, outFile, writer.w, writer.sm, options, sessionId, replicated ? (target ?? 0) : undefined, ids, clock);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

interface Plan {
  baseTarget: number | undefined;
  turnsTarget: number | undefined;
  compactionCount: number;
  options: GenerateOptions;
  ids: SeededRandom;
}

function runPlan(w: SessionWriter, plan: Plan): void {
  const { baseTarget, turnsTarget, compactionCount, options } = plan;
  const branches = options.branches ?? true;
  const contextEdits = options.contextEdits ?? true;
  const unknownEntries = options.unknownEntries ?? true;
  // Progress in [0, 1]: by bytes when a size is the target, else by turns.
  const progress = (): number =>
    baseTarget !== undefined ? Math.min(1, w.bytes() / Math.max(1, baseTarget - FINAL_TURN_BYTES)) : w.turn / Math.max(1, (turnsTarget ?? 2) - 1);
  // By size: stop when half an average turn more would pass the target (less the final turn).
  const done = (): boolean => {
    if (baseTarget === undefined) return w.turn >= (turnsTarget ?? 2) - 1;
    const bytes = w.bytes();
    return bytes + bytes / Math.max(1, w.turn) / 2 >= baseTarget - FINAL_TURN_BYTES;
  };

  w.setup();
  w.founding();
  let compactionsDone = 0;
  let branchDone = !branches;
  let plainBranchDone = !branches;
  let editsDone = 0;
  let unknownDone = !unknownEntries;
  const needleKinds: Needle["kind"][] = ["identifier", "hex", "error-line"];
  const userNeedleKinds = ["decision", "hex", "identifier"] as const;
  let n = 0;
  while (!done()) {
    const p = progress();
    const late = p >= 0.8;
    w.work({
      needle: w.turn % 4 === 1 ? needleKinds[n++ % needleKinds.length] : undefined,
      userNeedle: w.turn % 7 === 3 ? userNeedleKinds[Math.floor(w.turn / 7) % userNeedleKinds.length] : undefined,
      late,
    });
    const q = progress();
    if (!branchDone && q >= 0.3) {
      branchDone = true;
      w.abandonedBranch(true);
    } else if (!plainBranchDone && q >= 0.6) {
      plainBranchDone = true;
      w.abandonedBranch(false);
    }
    if (compactionsDone < compactionCount && q >= (compactionsDone + 1) / (compactionCount + 1)) {
      // With two or more compactions, the last one keeps nothing (retain-none).
      w.compaction(compactionCount >= 2 && compactionsDone === compactionCount - 1);
      compactionsDone++;
    }
    if (contextEdits && editsDone < 3 && q >= 0.2 + editsDone * 0.25) {
      w.contextEdit(editsDone === 1);
      editsDone++;
    }
    if (!unknownDone && q >= 0.45) {
      unknownDone = true;
      w.unknownEntry(plan.ids);
    }
    if (w.turn % 10 === 5) w.extensionEntries();
    if (w.turn % 25 === 12) w.maybeModelChange();
  }
  // Sessions too short to reach a scheduled point still get what was asked for.
  if (!branchDone) w.abandonedBranch(true);
  while (compactionsDone < compactionCount) {
    w.work({ late: true });
    w.compaction(compactionCount >= 2 && compactionsDone === compactionCount - 1);
    compactionsDone++;
  }
  if (contextEdits && editsDone === 0) w.contextEdit(false);
  if (!unknownDone) w.unknownEntry(plan.ids);
  w.finalTurn();
}

async function finish(
  path: string,
  givenPath: string,
  w: SessionWriter,
  sm: SessionManager,
  options: GenerateOptions,
  sessionId: string,
  replicateTo: number | undefined,
  ids: SeededRandom,
  clock: SeededClock,
): Promise<Manifest> {
  const leafId = sm.getLeafId() ?? "";
  const lineage = new Set(sm.getBranch().map((e) => e.id));
  const on = (id: string): boolean => lineage.has(id);
  const fixedLines = new Set(w.fixed.filter((f) => on(f.entryId)).map((f) => f.line));
  const unique = (xs: string[]): string[] => [...new Set(xs)];
  // Turn numbers as contract-decisions.md defines them: 1-based count of user messages on the path
  // from the root to the entry (a branch continues its fork point's numbering). Parents precede
  // children in file order, so one pass suffices.
  const turnOf = new Map<string, number>();
  for (const e of sm.getEntries()) {
    const isUser = e.type === "message" && e.message.role === "user";
    turnOf.set(e.id, (e.parentId === null ? 0 : (turnOf.get(e.parentId) ?? 0)) + (isUser ? 1 : 0));
  }
  const turn = (id: string): number => turnOf.get(id) ?? 0;
  const manifest: Manifest = {
    seed: options.seed,
    sessionId,
    file: givenPath,
    bytes: statSync(path).size,
    entries: sm.getEntries().length,
    foundingRequest: w.foundingRequest,
    corrections: w.corrections.filter((c) => on(c.entryId)).map((c) => c.text),
    preferences: unique(w.preferences.filter((c) => on(c.entryId)).map((c) => c.text)),
    modifiedFiles: unique(w.modified.filter((m) => on(m.entryId)).map((m) => m.path)),
    createdFiles: unique(w.created.filter((m) => on(m.entryId)).map((m) => m.path)),
    commits: w.commits.filter((c) => on(c.entryId)).map(({ hash, subject, entryId }) => ({ hash, subject, turn: turn(entryId) })),
    errorsOpenAtEnd: unique(w.openFailures.filter((o) => on(o.entryId) && !fixedLines.has(o.failure.line)).map((o) => o.failure.line)),
    errorsFixed: [...fixedLines],
    needles: w.needles.map((nd) => ({ ...nd, turn: turn(nd.entryId), onLineage: on(nd.entryId) })),
    abandonedBranchFacts: unique(w.branchFacts),
    compactions: w.compactions,
    branchPoints: w.branchPoints,
    leafId,
  };
  if (replicateTo !== undefined) {
    const result = await replicate(path, sm, w.turns, replicateTo, ids, clock);
    manifest.replication = { baseEntries: manifest.entries, baseBytes: manifest.bytes, replicatedEntries: result.entries };
    manifest.entries += result.entries;
    manifest.leafId = result.leafId;
    manifest.bytes = result.bytes;
  }
  if (options.damage) {
    const report = await applyDamage(path, options.damage, new SeededRandom(options.seed, 4));
    manifest.damage = report;
    manifest.bytes = statSync(path).size;
  }
  return manifest;
}
