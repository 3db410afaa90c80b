import { describe, expect, it } from "vitest";
import {
  analyzeText,
  assignBlocks,
  comparePair,
  findClusters,
  generateExampleBank,
  isExpiredEphemera,
  type Memory,
  type RetainItem,
} from "@context-fold/memory-gardener-client";
import { formatScore, scoreActions } from "./bank-scoring.js";
import { defaultJudge, enforceRules } from "@context-fold/memory-gardener-client";

const NOW = "2026-11-20T12:00:00.000Z";

function memoryOf(item: RetainItem, index: number, overrides: Partial<Memory> = {}): Memory {
  const hex = index.toString(16).padStart(12, "0");
  return {
    id: `00000000-0000-4000-8000-${hex}`,
    text: item.content,
    context: item.context ?? null,
    date: item.timestamp ?? null,
    factType: item.metadata?.["fact_type"] === "observation" ? "observation" : "world",
    entities: (item.entities ?? []).map((e) => e.text),
    tags: item.tags ?? [],
    metadata: item.metadata ?? {},
    state: "valid",
    invalidationReason: null,
    invalidatedAt: null,
    mentionedAt: item.timestamp ?? null,
    occurredStart: item.timestamp ?? null,
    occurredEnd: item.timestamp ?? null,
    documentId: null,
    ...overrides,
  };
}

describe("pair classification", () => {
  it("sees the /v1/auth vs /v2/auth dispute as a contradiction", () => {
    const v = comparePair(analyzeText("The auth endpoint is /v1/auth."), analyzeText("The auth endpoint moved to /v2/auth."));
    expect(v?.kind).toBe("contradiction");
  });

  it("never pairs look-alikes about different subjects", () => {
    expect(comparePair(analyzeText("The billing service runs 5 replicas."), analyzeText("The search service runs 7 replicas."))).toBeNull();
    expect(comparePair(analyzeText("The billing service runs 5 replicas."), analyzeText("The search service runs 5 replicas."))).toBeNull();
    expect(comparePair(analyzeText("Priya owns the billing service."), analyzeText("Priya owns the search service."))).toBeNull();
  });

  it("sees a restatement as a near-duplicate and a changed owner, version, limit or status as a contradiction", () => {
    expect(comparePair(analyzeText("The billing service runs 5 replicas."), analyzeText("We run five replicas of the billing service."))?.kind).toBe("near_duplicate");
    expect(comparePair(analyzeText("Priya owns the billing service."), analyzeText("The billing service is owned by Priya."))?.kind).toBe("near_duplicate");
    expect(comparePair(analyzeText("Priya owns the billing service."), analyzeText("Marco owns the billing service now."))?.kind).toBe("contradiction");
    expect(comparePair(analyzeText("The billing service is deployed at version 2.3.1."), analyzeText("Billing service version: 2.4.0."))?.kind).toBe("contradiction");
    expect(comparePair(analyzeText("The billing service rate limit is 300 requests per second."), analyzeText("The billing service rate limit was raised to 500 requests per second."))?.kind).toBe("contradiction");
    expect(comparePair(analyzeText("The billing nightly export job is enabled."), analyzeText("The billing nightly export job is disabled now."))?.kind).toBe("contradiction");
  });

  it("keeps staging claims apart from production claims", () => {
    expect(comparePair(analyzeText("The billing service runs 5 replicas in staging."), analyzeText("The billing service runs 8 replicas in production."))).toBeNull();
  });
});

describe("ephemera", () => {
  const item = (content: string, days: number): Memory =>
    memoryOf({ content, timestamp: new Date(Date.parse(NOW) - days * 86_400_000).toISOString() }, days);

  it("expires CI / PR / run state older than 14 days, not younger, not durable CI facts", () => {
    expect(isExpiredEphemera(item("CI run #4821 for PR #312 is failing on the e2e suite.", 15), NOW)).toBe(true);
    expect(isExpiredEphemera(item("CI run #4821 for PR #312 is failing on the e2e suite.", 13), NOW)).toBe(false);
    expect(isExpiredEphemera(item("The deploy pipeline for billing is blocked: build #77 is queued behind PR #9.", 30), NOW)).toBe(true);
    expect(isExpiredEphemera(item("The billing service CI pipeline uses 4 parallel runners.", 90), NOW)).toBe(false);
    expect(isExpiredEphemera(item("The billing nightly export job is enabled.", 90), NOW)).toBe(false);
  });

  it("expires strictly after 14 days: exactly 14 days old is still fresh", () => {
    const exactly = memoryOf({ content: "CI run #9 for PR #3 is failing.", timestamp: new Date(Date.parse(NOW) - 14 * 86_400_000).toISOString() }, 1);
    expect(isExpiredEphemera(exactly, NOW)).toBe(false);
    const justOver = memoryOf({ content: "CI run #9 for PR #3 is failing.", timestamp: new Date(Date.parse(NOW) - 14 * 86_400_000 - 1).toISOString() }, 2);
    expect(isExpiredEphemera(justOver, NOW)).toBe(true);
  });

  it("never expires an undated memory", () => {
    expect(isExpiredEphemera(memoryOf({ content: "CI run #1 is failing." }, 1, { date: null, mentionedAt: null, occurredStart: null }), NOW)).toBe(false);
  });
});

describe("clusters over the generated bank (pure, no server)", () => {
  it("finds the planted clusters with high precision and recall", async () => {
    const bank = generateExampleBank(7, 800, NOW);
    expect(bank.items.length).toBeGreaterThanOrEqual(800);
    expect(new Set(bank.items.map((i) => i.content)).size).toBe(bank.items.length);
    const memories = bank.items.map((item, i) => memoryOf(item, i));
    const blocks = assignBlocks(memories);
    const blockOf = new Map(memories.map((m, i) => [m.id, blocks[i]?.block ?? ""] as const));
    const live = memories.filter((m) => !bank.truth.toInvalidate.includes(m.text));
    const clusters = findClusters(live, NOW, (m) => blockOf.get(m.id) ?? "");
    const verdicts = await defaultJudge.judgeBatch({ clusters, now: NOW });
    const actions = clusters.flatMap((c) => enforceRules(c, verdicts.find((v) => v.clusterId === c.id)?.verdicts ?? []).actions);
    const score = scoreActions(actions, bank.truth);
    console.log(formatScore("pure clustering, 800 memories", score));
    expect(score.contradiction.precision).toBeGreaterThanOrEqual(0.95);
    expect(score.contradiction.recall).toBeGreaterThanOrEqual(0.9);
    expect(score.near_duplicate.precision).toBeGreaterThanOrEqual(0.95);
    expect(score.near_duplicate.recall).toBeGreaterThanOrEqual(0.9);
    expect(score.expired_ephemera.precision).toBe(1);
    expect(score.expired_ephemera.recall).toBe(1);
    // Observations are never clustered.
    const obs = new Set(bank.truth.observations);
    expect(actions.some((a) => obs.has(a.text))).toBe(false);
  });

  it("is deterministic", () => {
    const a = generateExampleBank(3, 600, NOW);
    const b = generateExampleBank(3, 600, NOW);
    expect(JSON.stringify(a)).toBe(JSON.stringify(b));
    const mems = a.items.map((item, i) => memoryOf(item, i));
    expect(JSON.stringify(findClusters(mems, NOW))).toBe(JSON.stringify(findClusters([...mems].reverse(), NOW)));
  });
});
