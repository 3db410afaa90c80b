// Finds candidate clusters among the memories of one shard: near-duplicates, contradictions about the
// same subject, and expired ephemeral run state. Pure: same memories and `now` → same clusters.
import type { Memory } from "../client/types.js";
import { relateClaims } from "./claim.js";
import { analyzeText, type TextAnalysis } from "./text-analysis.js";
import type { CandidateCluster, ClusterKind, ClusterMember } from "./types.js";

/** CI / PR / run-status memories older than this (relative to `now`) are expired. */
export const EPHEMERA_MAX_AGE_MS = 14 * 24 * 60 * 60 * 1000;

/** Pairs inside one block are compared all-against-all; a block bigger than this is split by subject order. */
export const MAX_BLOCK_COMPARE = 400;

interface Analyzed {
  readonly memory: Memory;
  readonly analysis: TextAnalysis;
}

/** The memory's date for ageing: the list/get `date`, else when it happened, else when it was mentioned. */
export function memoryDate(memory: Memory): string | null {
  return memory.date ?? memory.occurredStart ?? memory.mentionedAt;
}

/** Is this memory ephemeral run state older than 14 days at `now`? Undated memories never expire. */
export function isExpiredEphemera(memory: Memory, now: string, analysis: TextAnalysis = analyzeText(memory.text)): boolean {
  if (!analysis.ephemeral) return false;
  const date = memoryDate(memory);
  if (date === null) return false;
  const at = Date.parse(date);
  const nowMs = Date.parse(now);
  if (Number.isNaN(at) || Number.isNaN(nowMs)) return false;
  return nowMs - at > EPHEMERA_MAX_AGE_MS;
}

function analyze(memory: Memory): Analyzed {
  return { memory, analysis: analyzeText(memory.text) };
}

type PairVerdict = { kind: "near_duplicate" | "contradiction"; evidence: string } | null;

/** Compare two memories' texts through the claim model. Look-alikes about different subjects return null. */
export function comparePair(a: TextAnalysis, b: TextAnalysis): PairVerdict {
  const relation = relateClaims(a, b);
  if (relation === null) return null;
  return { kind: relation.kind === "conflict" ? "contradiction" : "near_duplicate", evidence: relation.evidence };
}

class UnionFind {
  private readonly parent: number[];
  constructor(n: number) {
    this.parent = Array.from({ length: n }, (_, i) => i);
  }
  find(x: number): number {
    let root = x;
    while (this.parent[root] !== root) root = this.parent[root] ?? root;
    let cur = x;
    while (this.parent[cur] !== root) {
      const next = this.parent[cur] ?? root;
      this.parent[cur] = root;
      cur = next;
    }
    return root;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra === rb) return;
    // Smallest index is the root: deterministic.
    if (ra < rb) this.parent[rb] = ra;
    else this.parent[ra] = rb;
  }
}

function toMember(memory: Memory): ClusterMember {
  return { id: memory.id, text: memory.text, date: memoryDate(memory), factType: memory.factType };
}

function makeCluster(kind: ClusterKind, members: readonly Memory[], evidence: string): CandidateCluster {
  const sorted = [...members].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  return { id: `${kind}:${sorted[0]?.id ?? ""}`, kind, members: sorted.map(toMember), evidence };
}

/** The subject order key used to keep similar memories adjacent when a block must be split. */
export function subjectOrderKey(text: string): string {
  return analyzeText(text).subject.join(" ");
}

/**
 * Find candidate clusters among `memories` (one shard). `blockOf` groups memories that may cluster
 * (the manifest's blocking key); pairs are compared only inside a block, which keeps the work
 * near-linear in the bank size. Invalidated memories and observations are ignored.
 */
export function findClusters(memories: readonly Memory[], now: string, blockOf: (memory: Memory) => string = () => ""): CandidateCluster[] {
  const live = memories
    .filter((m) => m.state !== "invalidated" && m.factType !== "observation")
    .sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
  const analyzed = live.map(analyze);
  const clusters: CandidateCluster[] = [];

  // Every memory's claim is compared, ephemeral run state included: a dispute is never expired away.
  const comparable = analyzed;
  // Pairs within each block.
  const blocks = new Map<string, number[]>();
  comparable.forEach((item, index) => {
    const key = blockOf(item.memory);
    const list = blocks.get(key);
    if (list === undefined) blocks.set(key, [index]);
    else list.push(index);
  });
  const dup = new UnionFind(comparable.length);
  const contra = new UnionFind(comparable.length);
  const inContradiction = new Set<number>();
  const dupEvidence = new Map<number, string>();
  const contraEvidence = new Map<number, string>();
  for (const key of [...blocks.keys()].sort()) {
    const indices = blocks.get(key) ?? [];
    const ordered = indices.length > MAX_BLOCK_COMPARE
      ? [...indices].sort((x, y) => {
          const kx = comparable[x]?.analysis.subject.join(" ") ?? "";
          const ky = comparable[y]?.analysis.subject.join(" ") ?? "";
          return kx < ky ? -1 : kx > ky ? 1 : x - y;
        })
      : indices;
    for (let start = 0; start < ordered.length; start += MAX_BLOCK_COMPARE) {
      const chunk = ordered.slice(start, start + MAX_BLOCK_COMPARE);
      for (let i = 0; i < chunk.length; i++) {
        const ia = chunk[i] ?? 0;
        const a = comparable[ia];
        if (a === undefined) continue;
        for (let j = i + 1; j < chunk.length; j++) {
          const ib = chunk[j] ?? 0;
          const b = comparable[ib];
          if (b === undefined) continue;
          const verdict = comparePair(a.analysis, b.analysis);
          if (verdict === null) continue;
          // Run state is judged by its age, never superseded as a restatement.
          if (verdict.kind === "near_duplicate" && (a.analysis.ephemeral || b.analysis.ephemeral)) continue;
          if (verdict.kind === "contradiction") {
            contra.union(ia, ib);
            inContradiction.add(ia);
            inContradiction.add(ib);
            const root = Math.min(ia, ib);
            if (!contraEvidence.has(root)) contraEvidence.set(root, verdict.evidence);
          } else {
            dup.union(ia, ib);
            const root = Math.min(ia, ib);
            if (!dupEvidence.has(root)) dupEvidence.set(root, verdict.evidence);
          }
        }
      }
    }
  }

  const contraGroups = groupBy(comparable.length, (i) => (inContradiction.has(i) ? contra.find(i) : -1));
  for (const [root, members] of contraGroups) {
    if (root < 0 || members.length < 2) continue;
    const evidence = firstEvidence(members, contraEvidence) ?? "same subject, incompatible current-state claims";
    clusters.push(makeCluster("contradiction", members.map((i) => comparable[i]?.memory).filter(isMemory), evidence));
  }
  // A member of a dispute is never superseded as a duplicate nor expired: it stays with its contradiction.
  const dupGroups = groupBy(comparable.length, (i) => (inContradiction.has(i) ? -1 : dup.find(i)));
  for (const [root, members] of dupGroups) {
    if (root < 0 || members.length < 2) continue;
    const evidence = firstEvidence(members, dupEvidence) ?? "same claim restated";
    clusters.push(makeCluster("near_duplicate", members.map((i) => comparable[i]?.memory).filter(isMemory), evidence));
  }
  const expiredByBlock = new Map<string, Memory[]>();
  comparable.forEach((item, index) => {
    if (inContradiction.has(index) || !isExpiredEphemera(item.memory, now, item.analysis)) return;
    const key = blockOf(item.memory);
    const list = expiredByBlock.get(key);
    if (list === undefined) expiredByBlock.set(key, [item.memory]);
    else list.push(item.memory);
  });
  for (const key of [...expiredByBlock.keys()].sort()) {
    clusters.push(makeCluster("expired_ephemera", expiredByBlock.get(key) ?? [], `CI / PR / run-status state older than 14 days at ${now}`));
  }
  return clusters.sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0));
}

function isMemory(m: Memory | undefined): m is Memory {
  return m !== undefined;
}

function firstEvidence(members: readonly number[], evidence: ReadonlyMap<number, string>): string | undefined {
  for (const m of members) {
    const e = evidence.get(m);
    if (e !== undefined) return e;
  }
  return undefined;
}

function groupBy(n: number, key: (i: number) => number): Map<number, number[]> {
  const out = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const k = key(i);
    const list = out.get(k);
    if (list === undefined) out.set(k, [i]);
    else list.push(i);
  }
  return out;
}
