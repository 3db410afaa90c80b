// Finds candidate clusters among the memories of one shard: near-duplicates, contradictions about the
// same subject, and expired ephemeral run state. Pure: same memories and `now` → same clusters.
import type { Memory } from "../client/types.js";
import { analyzeText, isSubsetEither, jaccard, type ClaimValue, type TextAnalysis, type ValueKind } from "./text-analysis.js";
import type { CandidateCluster, ClusterKind, ClusterMember } from "./types.js";

/** CI / PR / run-status memories older than this (relative to `now`) are expired. */
export const EPHEMERA_MAX_AGE_MS = 14 * 24 * 60 * 60 * 1000;

/** Pairs inside one block are compared all-against-all; a block bigger than this is split by subject order. */
export const MAX_BLOCK_COMPARE = 400;

interface Shape {
  readonly analysis: TextAnalysis;
  /** Subject tokens plus `kind=value` tokens, sorted. */
  readonly tokens: readonly string[];
  readonly byKind: ReadonlyMap<ValueKind, readonly string[]>;
}

interface Analyzed extends Shape {
  readonly memory: Memory;
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
  return { memory, ...toShape(analyzeText(memory.text)) };
}

function valueToken(v: ClaimValue): string {
  return `${v.kind}=${v.value}`;
}

function subsetOf(small: readonly string[], large: readonly string[]): boolean {
  const set = new Set(large);
  return small.every((t) => set.has(t));
}

type PairVerdict = { kind: "near_duplicate" | "contradiction"; evidence: string } | null;

/** Compare two non-ephemeral memories. Look-alikes about different subjects return null. */
export function comparePair(a: TextAnalysis, b: TextAnalysis): PairVerdict {
  return classify(toShape(a), toShape(b));
}

function toShape(analysis: TextAnalysis): Shape {
  const byKind = new Map<ValueKind, string[]>();
  for (const v of analysis.values) {
    const list = byKind.get(v.kind);
    if (list === undefined) byKind.set(v.kind, [v.value]);
    else list.push(v.value);
  }
  return { analysis, tokens: [...analysis.subject, ...analysis.values.map(valueToken)].sort(), byKind };
}

function classify(a: Shape, b: Shape): PairVerdict {
  const sa = a.analysis.subject;
  const sb = b.analysis.subject;
  if (sa.length === 0 || sb.length === 0) return null;
  // A claim about staging is not a claim about prod.
  if (a.analysis.environments.join(",") !== b.analysis.environments.join(",")) return null;
  const subjectSim = jaccard(sa, sb);
  // Same subject: one subject is the other plus qualifiers. A substitution (billing ↔ search) is a
  // different subject, however alike the sentences look.
  const sameSubject = subjectSim >= 0.5 && isSubsetEither(sa, sb);
  if (sameSubject) {
    for (const [kind, va] of a.byKind) {
      const vb = b.byKind.get(kind);
      if (vb === undefined) continue;
      if (!subsetOf(va, vb) && !subsetOf(vb, va)) {
        return { kind: "contradiction", evidence: `same subject (${sa.length <= sb.length ? sa.join(" ") : sb.join(" ")}), different ${kind}: ${va.join(", ")} vs ${vb.join(", ")}` };
      }
    }
    const valuesA = a.analysis.values.map(valueToken);
    const valuesB = b.analysis.values.map(valueToken);
    if ((subsetOf(valuesA, valuesB) || subsetOf(valuesB, valuesA)) && jaccard(a.tokens, b.tokens) >= 0.5) {
      return { kind: "near_duplicate", evidence: `same fact restated (${sa.length <= sb.length ? sa.join(" ") : sb.join(" ")})` };
    }
    return null;
  }
  // A long sentence restated with one filler word changed: identical values, nearly identical words.
  if (a.analysis.values.map(valueToken).join("|") === b.analysis.values.map(valueToken).join("|") && jaccard(a.tokens, b.tokens) >= 0.85) {
    return { kind: "near_duplicate", evidence: "same fact restated (near-identical wording)" };
  }
  return null;
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

  // Expired ephemera: grouped by block, judged by age only, never compared as claims.
  const expiredByBlock = new Map<string, Memory[]>();
  const comparable: Analyzed[] = [];
  for (const item of analyzed) {
    if (item.analysis.ephemeral) {
      if (isExpiredEphemera(item.memory, now, item.analysis)) {
        const key = blockOf(item.memory);
        const list = expiredByBlock.get(key);
        if (list === undefined) expiredByBlock.set(key, [item.memory]);
        else list.push(item.memory);
      }
      continue;
    }
    comparable.push(item);
  }
  for (const key of [...expiredByBlock.keys()].sort()) {
    const members = expiredByBlock.get(key) ?? [];
    clusters.push(makeCluster("expired_ephemera", members, `CI / PR / run-status state older than 14 days at ${now}`));
  }

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
          const verdict = classify(a, b);
          if (verdict === null) continue;
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
  // A member of a dispute is never superseded as a duplicate: it stays with its contradiction.
  const dupGroups = groupBy(comparable.length, (i) => (inContradiction.has(i) ? -1 : dup.find(i)));
  for (const [root, members] of dupGroups) {
    if (root < 0 || members.length < 2) continue;
    const evidence = firstEvidence(members, dupEvidence) ?? "same fact restated";
    clusters.push(makeCluster("near_duplicate", members.map((i) => comparable[i]?.memory).filter(isMemory), evidence));
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
