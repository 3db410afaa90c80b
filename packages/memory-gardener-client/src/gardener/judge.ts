// Decides one action per cluster member. The default judge is deterministic; a model-backed judge can
// plug in through `Judge`, but `enforceRules` has the last word: disputes are flagged, never resolved.
import { canSupersede, claimPair } from "./claim.js";
import { analyzeText } from "./text-analysis.js";
import type { CandidateCluster, ClusterMember, GardenAction, MemberAction } from "./types.js";

export interface JudgeVerdict {
  readonly id: string;
  readonly action: GardenAction;
  /** For `supersede`: the member that stays. */
  readonly survivorId?: string;
  readonly reason?: string;
}

export interface ClusterVerdicts {
  readonly clusterId: string;
  readonly verdicts: readonly JudgeVerdict[];
}

export interface JudgeBatch {
  readonly clusters: readonly CandidateCluster[];
  /** The run's `now` (ISO): the only clock a judge may use. */
  readonly now: string;
}

/** Anything that can judge a batch of candidate clusters (the default rules, or a model). */
export interface Judge {
  readonly name: string;
  /** Clusters per batch this judge prefers (a model wants small batches; default 25). */
  readonly batchSize?: number;
  judgeBatch(batch: JudgeBatch): Promise<readonly ClusterVerdicts[]>;
}

function informationTokens(member: ClusterMember, against?: ClusterMember): Set<string> {
  const self = analyzeText(member.text);
  const claim = against === undefined ? undefined : claimPair(self, analyzeText(against.text))[0];
  const frame = claim?.frame ?? [...self.subject, ...self.ambiguous];
  const values = claim?.values ?? self.values;
  return new Set([...frame, ...values.map((v) => `${v.kind}=${v.value}`), ...self.prior.map((v) => `prior:${v.kind}=${v.value}`)]);
}

function byIdAsc(x: ClusterMember, y: ClusterMember): number {
  return x.id < y.id ? -1 : x.id > y.id ? 1 : 0;
}

/** Survivor of a duplicate cluster: the most informative statement, then the newest, then the smallest id. */
export function pickSurvivor(members: readonly ClusterMember[]): ClusterMember | undefined {
  let best: { member: ClusterMember; size: number } | undefined;
  for (const member of [...members].sort(byIdAsc)) {
    const size = informationTokens(member).size;
    if (best === undefined || size > best.size || (size === best.size && (member.date ?? "") > (best.member.date ?? ""))) {
      best = { member, size };
    }
  }
  return best?.member;
}

function judgeCluster(cluster: CandidateCluster): ClusterVerdicts {
  switch (cluster.kind) {
    case "contradiction":
      return {
        clusterId: cluster.id,
        verdicts: cluster.members.map((m) => ({ id: m.id, action: "flag_contradiction" as const, reason: `members disagree about what is currently true: ${cluster.evidence}` })),
      };
    case "expired_ephemera":
      return {
        clusterId: cluster.id,
        verdicts: cluster.members.map((m) => ({ id: m.id, action: "expire" as const, reason: `ephemeral run state dated ${m.date ?? "?"}, older than 14 days` })),
      };
    case "near_duplicate": {
      const survivor = pickSurvivor(cluster.members);
      if (survivor === undefined) return { clusterId: cluster.id, verdicts: [] };
      return {
        clusterId: cluster.id,
        verdicts: cluster.members.map((m): JudgeVerdict => {
          if (m.id === survivor.id) return { id: m.id, action: "keep", reason: "survivor: the most informative statement" };
          // Supersede only what the survivor fully restates (read as a pair: "Priya …" is a name next to
          // "… owned by Priya"); a member adding its own detail stays.
          const kept = informationTokens(survivor, m);
          const covered = [...informationTokens(m, survivor)].every((t) => kept.has(t));
          return covered
            ? { id: m.id, action: "supersede", survivorId: survivor.id, reason: `restated by ${survivor.id}` }
            : { id: m.id, action: "keep", reason: "adds detail the survivor lacks" };
        }),
      };
    }
  }
}

/** The deterministic judge: contradictions flagged, expired ephemera expired, restated duplicates superseded. */
export const defaultJudge: Judge = {
  name: "default",
  // Pure and fast: big batches mean fewer batch files to fsync.
  batchSize: 1000,
  judgeBatch(batch: JudgeBatch): Promise<readonly ClusterVerdicts[]> {
    return Promise.resolve(batch.clusters.map(judgeCluster));
  },
};

export interface EnforcedCluster {
  readonly actions: readonly MemberAction[];
  /** Verdicts replaced by the rules (a resolved dispute, an expire outside ephemera, a bad survivor …). */
  readonly overrides: number;
}

/**
 * The rules that hold whatever a judge says: a contradiction cluster — or any cluster a judge flags, or
 * one where a judge supersedes a claim by another that differs in value or polarity — is
 * `flag_contradiction` for every member; `expire` only for expired ephemera; `supersede` only to a
 * member of the same cluster that is itself kept; a missing or unknown verdict is `keep`.
 */
export function enforceRules(cluster: CandidateCluster, verdicts: readonly JudgeVerdict[]): EnforcedCluster {
  const memberIds = new Set(cluster.members.map((m) => m.id));
  const given = new Map<string, JudgeVerdict>();
  for (const v of verdicts) if (memberIds.has(v.id) && !given.has(v.id)) given.set(v.id, v);
  let overrides = 0;
  const base = (m: ClusterMember, action: GardenAction, reason: string, survivorId?: string): MemberAction => ({
    id: m.id, clusterId: cluster.id, kind: cluster.kind, action, reason, text: m.text, ...(survivorId === undefined ? {} : { survivorId }),
  });

  const textOf = new Map(cluster.members.map((m) => [m.id, m.text] as const));
  // A supersede between claims that differ in value or polarity would resolve a dispute: whatever the
  // judge meant, such members disagree, so the cluster is flagged instead.
  const resolvesDispute = [...given.values()].some((v) => v.action === "supersede" && v.survivorId !== undefined && textOf.has(v.survivorId) &&
    !canSupersede(textOf.get(v.id) ?? "", textOf.get(v.survivorId) ?? ""));
  const disputed = cluster.kind === "contradiction" || resolvesDispute || [...given.values()].some((v) => v.action === "flag_contradiction");
  if (disputed) {
    const actions = cluster.members.map((m) => {
      const v = given.get(m.id);
      if (v?.action !== "flag_contradiction") overrides++;
      return base(m, "flag_contradiction", v?.action === "flag_contradiction" && v.reason !== undefined ? v.reason : `dispute about what is currently true: ${cluster.evidence}; human review required`);
    });
    return { actions, overrides };
  }

  // First pass: legal shapes. Second pass: a supersede must point at a member that is kept.
  const first = new Map<string, JudgeVerdict>();
  for (const m of cluster.members) {
    const v = given.get(m.id);
    if (v === undefined) {
      first.set(m.id, { id: m.id, action: "keep", reason: "no verdict: kept" });
      overrides++;
      continue;
    }
    if (v.action === "expire" && cluster.kind !== "expired_ephemera") {
      first.set(m.id, { id: m.id, action: "keep", reason: "expire is only for expired ephemera: kept" });
      overrides++;
      continue;
    }
    if (v.action === "supersede" && (v.survivorId === undefined || v.survivorId === m.id || !memberIds.has(v.survivorId))) {
      first.set(m.id, { id: m.id, action: "keep", reason: "supersede without a survivor in the cluster: kept" });
      overrides++;
      continue;
    }
    first.set(m.id, v);
  }
  const actions = cluster.members.map((m) => {
    const v = first.get(m.id) ?? { id: m.id, action: "keep" as const };
    if (v.action === "supersede") {
      const survivor = v.survivorId === undefined ? undefined : first.get(v.survivorId);
      if (survivor?.action !== "keep") {
        overrides++;
        return base(m, "keep", "its survivor is not kept: kept");
      }
    }
    return base(m, v.action, v.reason ?? v.action, v.action === "supersede" ? v.survivorId : undefined);
  });
  return { actions, overrides };
}
