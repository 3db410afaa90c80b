// Phase 3: judge the candidate clusters in batches (at most 4 batches in parallel), enforce the rules
// on every verdict, and write one action per member to `actions.json`.
import { join } from "node:path";
import { mapBounded } from "./bounded-pool.js";
import { defaultJudge, enforceRules, type Judge } from "./judge.js";
import { isVersionedObject, numbered, phasePaths, readJsonIfExists, writeJsonAtomic } from "./phase-files.js";
import { readShardFiles } from "./shards.js";
import { GardenerStateError, type ActionsFile, type CandidateCluster, type JudgeAck, type MemberAction } from "./types.js";

export const MAX_JUDGE_PARALLEL = 4;
export const JUDGE_BATCH_SIZE = 25;

export interface JudgeOptions {
  readonly outDir: string;
  readonly now: string;
  readonly judge?: Judge;
  /** Batches in flight; capped at 4. */
  readonly concurrency?: number;
  readonly batchSize?: number;
}

interface JudgeBatchFile {
  readonly version: 1;
  readonly judge: string;
  readonly clusterIds: readonly string[];
  readonly actions: readonly MemberAction[];
  readonly overrides: number;
}

/** Phase 3. Writes `<outDir>/judge/batch-NNNNN.json` per batch and `actions.json`; returns a tiny ack. */
export async function runJudgePhase(options: JudgeOptions): Promise<JudgeAck> {
  const judge = options.judge ?? defaultJudge;
  const paths = phasePaths(options.outDir);
  const clusters: CandidateCluster[] = readShardFiles(options.outDir)
    .flatMap((s) => s.clusters)
    .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const size = Math.max(1, options.batchSize ?? judge.batchSize ?? JUDGE_BATCH_SIZE);
  const batches: CandidateCluster[][] = [];
  for (let i = 0; i < clusters.length; i += size) batches.push(clusters.slice(i, i + size));
  const parallel = Math.max(1, Math.min(MAX_JUDGE_PARALLEL, options.concurrency ?? MAX_JUDGE_PARALLEL));
  const results = await mapBounded(batches, parallel, async (batch, index) => {
    const file = join(paths.judgeDir, numbered("batch", index));
    const done = readJsonIfExists(file, isVersionedObject<JudgeBatchFile>);
    if (done !== undefined && done.judge === judge.name && done.clusterIds.join("\n") === batch.map((c) => c.id).join("\n")) return done;
    const verdicts = await judge.judgeBatch({ clusters: batch, now: options.now });
    const byCluster = new Map(verdicts.map((v) => [v.clusterId, v.verdicts] as const));
    const actions: MemberAction[] = [];
    let overrides = 0;
    for (const cluster of batch) {
      const enforced = enforceRules(cluster, byCluster.get(cluster.id) ?? []);
      actions.push(...enforced.actions);
      overrides += enforced.overrides;
    }
    const out: JudgeBatchFile = { version: 1, judge: judge.name, clusterIds: batch.map((c) => c.id), actions, overrides };
    writeJsonAtomic(file, out);
    return out;
  });
  // A memory belongs to one shard, so to one cluster; should a judge or a future sampler repeat one,
  // a flag wins over anything else and the first action otherwise.
  const byId = new Map<string, MemberAction>();
  for (const action of results.flatMap((r) => r.actions)) {
    const prior = byId.get(action.id);
    if (prior === undefined || (action.action === "flag_contradiction" && prior.action !== "flag_contradiction")) byId.set(action.id, action);
  }
  const actions = [...byId.values()];
  const file: ActionsFile = {
    version: 1, judge: judge.name, clusters, actions, overrides: results.reduce((a, r) => a + r.overrides, 0),
  };
  writeJsonAtomic(paths.actions, file);
  return { ok: true, path: paths.actions, clusters: clusters.length, actions: actions.length };
}

export function readActions(outDir: string): ActionsFile {
  const path = phasePaths(outDir).actions;
  const file = readJsonIfExists(path, isVersionedObject<ActionsFile>);
  if (file === undefined) throw new GardenerStateError(path, "missing: run the judge phase first");
  return file;
}
