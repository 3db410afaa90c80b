import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  analyzeText,
  assertSupersedable,
  assignBlocks,
  canSupersede,
  comparePair,
  defaultJudge,
  enforceRules,
  findClusters,
  type CandidateCluster,
  type Memory,
  type MemberAction,
  type RetainItem,
} from "@context-fold/memory-gardener-client";
import { DEV_FRAMES, HELD_OUT_FRAMES, generateClaimBank, type ClaimBank, type Frame } from "./claim-bank.js";

const NOW = "2026-11-20T12:00:00.000Z";

function memoryOf(item: RetainItem, index: number): Memory {
  return {
    id: `00000000-0000-4000-8000-${index.toString(16).padStart(12, "0")}`,
    text: item.content,
    context: item.context ?? null,
    date: item.timestamp ?? null,
    factType: "world",
    entities: (item.entities ?? []).map((e) => e.text),
    tags: item.tags ?? [],
    metadata: {},
    state: "valid",
    invalidationReason: null,
    invalidatedAt: null,
    mentionedAt: item.timestamp ?? null,
    occurredStart: item.timestamp ?? null,
    occurredEnd: null,
    documentId: null,
  };
}

async function judgeAll(clusters: readonly CandidateCluster[]): Promise<MemberAction[]> {
  const verdicts = await defaultJudge.judgeBatch({ clusters, now: NOW });
  return clusters.flatMap((c) => enforceRules(c, verdicts.find((v) => v.clusterId === c.id)?.verdicts ?? []).actions);
}

/** Every promise of the issue over one bank's actions; returns the failures, one line each. */
function audit(bank: ClaimBank, clusters: readonly CandidateCluster[], actions: readonly MemberAction[]): string[] {
  const problems: string[] = [];
  const actionOf = new Map(actions.map((a) => [a.text, a] as const));
  const clusterOf = new Map<string, CandidateCluster>();
  for (const c of clusters) for (const m of c.members) clusterOf.set(m.text, c);
  for (const [a, b] of bank.contradictions) {
    const ca = clusterOf.get(a);
    if (ca?.kind !== "contradiction" || clusterOf.get(b) !== ca) problems.push(`contradiction not flagged together [${bank.frameOf.get(a)}]: "${a}" / "${b}"`);
    for (const t of [a, b]) if (actionOf.get(t)?.action !== "flag_contradiction") problems.push(`contradiction member not flagged [${bank.frameOf.get(t)}]: "${t}" → ${actionOf.get(t)?.action ?? "none"}`);
  }
  for (const t of bank.lookalikes) {
    const c = clusterOf.get(t);
    if (c !== undefined) problems.push(`look-alike clustered as ${c.kind} [${bank.frameOf.get(t)}]: ${c.members.map((m) => `"${m.text}"`).join(" / ")}`);
  }
  for (const [a, b] of bank.duplicates) {
    const kinds = [actionOf.get(a)?.action, actionOf.get(b)?.action].sort();
    if (kinds[0] !== "keep" || kinds[1] !== "supersede") problems.push(`near-duplicate not exactly one supersede [${bank.frameOf.get(a)}]: "${a}" (${actionOf.get(a)?.action ?? "none"}) / "${b}" (${actionOf.get(b)?.action ?? "none"})`);
  }
  return problems;
}

async function runBank(bank: ClaimBank, blocking: "frame" | "entities"): Promise<{ clusters: CandidateCluster[]; actions: MemberAction[] }> {
  const memories = bank.items.map(memoryOf);
  const blocks = assignBlocks(memories);
  const blockOf = blocking === "frame"
    ? (m: Memory) => bank.frameOf.get(m.text) ?? ""
    : (m: Memory) => blocks[memories.indexOf(m)]?.block ?? "";
  const clusters = findClusters(memories, NOW, blockOf);
  return { clusters, actions: await judgeAll(clusters) };
}

describe("the claim model over a generated bank", () => {
  const bank = generateClaimBank(2026, { frames: DEV_FRAMES, contradictions: 36, duplicates: 50, lookalikes: 1000, now: NOW });

  it("has the size the issue asks for", () => {
    expect(bank.contradictions.length).toBeGreaterThanOrEqual(30);
    expect(new Set(bank.contradictions.map(([a]) => bank.frameOf.get(a))).size).toBeGreaterThanOrEqual(10);
    expect(bank.lookalikes.length).toBe(1000);
    expect(bank.duplicates.length).toBe(50);
  });

  // Blocking by frame compares every memory with every look-alike of its frame: the hardest case.
  it.each(["frame", "entities"] as const)("flags every contradiction with both members, no look-alike, one supersede per duplicate (blocking by %s)", async (blocking) => {
    const { clusters, actions } = await runBank(bank, blocking);
    expect(audit(bank, clusters, actions)).toEqual([]);
  });

  // Frames written before the model was tuned. Paraphrases that swap a content word ("go to" / "send …
  // to", "approves" / "need approval from", "starts" / "was pushed") are a different frame to the model,
  // so recall is lower here; the safety promises hold whatever it misses.
  it("on frames held out from development: safe everywhere, recall measured", async () => {
    const held = generateClaimBank(77, { frames: HELD_OUT_FRAMES, contradictions: 30, duplicates: 20, lookalikes: 300, now: NOW });
    const { clusters, actions } = await runBank(held, "frame");
    const problems = audit(held, clusters, actions);
    const missedContradictions = problems.filter((p) => p.startsWith("contradiction not flagged together")).length;
    const missedDuplicates = problems.filter((p) => p.startsWith("near-duplicate")).length;
    console.log(`held-out frames: contradictions flagged ${held.contradictions.length - missedContradictions}/${held.contradictions.length}, near-duplicates with one supersede ${held.duplicates.length - missedDuplicates}/${held.duplicates.length}`);
    // No look-alike is clustered, no contradiction member is superseded or expired, no pair loses both.
    expect(problems.filter((p) => p.startsWith("look-alike"))).toEqual([]);
    const actionOf = new Map(actions.map((a) => [a.text, a.action] as const));
    for (const t of held.contradictions.flat()) expect(["flag_contradiction", undefined]).toContain(actionOf.get(t));
    for (const [a, b] of held.duplicates) expect(actionOf.get(a) === "supersede" && actionOf.get(b) === "supersede").toBe(false);
    expect(missedContradictions).toBeLessThanOrEqual(9);
    expect(missedDuplicates).toBeLessThanOrEqual(7);
  });
});

describe("claims", () => {
  const rel = (a: string, b: string): string | undefined => comparePair(analyzeText(a), analyzeText(b))?.kind;

  it("reads polarity, previous values and names from the sentence", () => {
    expect(analyzeText("The zeta nightly export job is not enabled.").polarity).toBe("negated");
    expect(analyzeText("The zeta nightly export job is enabled.").polarity).toBe("affirmed");
    expect(analyzeText("The omega service no longer serves /v1/omega.").polarity).toBe("negated");
    const upFrom = analyzeText("The omega service now runs 7 replicas, up from 5.");
    expect(upFrom.values).toEqual([{ kind: "number", value: "7" }]);
    expect(upFrom.prior).toEqual([{ kind: "number", value: "5" }]);
    const instead = analyzeText("The omega service stores data in Postgres instead of MySQL.");
    expect(instead.values).toEqual([{ kind: "entity", value: "postgres" }]);
    expect(instead.prior).toEqual([{ kind: "entity", value: "mysql" }]);
    // "enabled, not disabled" contrasts a value; the claim stays affirmed.
    const contrast = analyzeText("The omega export is enabled, not disabled.");
    expect(contrast.polarity).toBe("affirmed");
    expect(contrast.prior).toEqual([{ kind: "status", value: "disabled" }]);
  });

  it("the issue's three resolved disputes are contradictions", () => {
    expect(rel("The zeta nightly export job is enabled.", "The zeta nightly export job is not enabled.")).toBe("contradiction");
    expect(rel("The omega service serves /v1/omega.", "The omega service no longer serves /v1/omega.")).toBe("contradiction");
    expect(rel("The omega service runs 5 replicas.", "The omega service now runs 7 replicas, up from 5.")).toBe("contradiction");
  });

  it("membership in a contradiction beats expiry: a disputed run state is flagged, never expired", async () => {
    const dated = (text: string, days: number, i: number): Memory =>
      memoryOf({ content: text, timestamp: new Date(Date.parse(NOW) - days * 86_400_000).toISOString() }, i);
    const memories = [
      dated("The nightly CI job for billing is failing.", 40, 1),
      dated("The nightly CI job for billing is passing.", 20, 2),
      dated("CI run #4821 for PR #312 is failing on the e2e suite.", 30, 3),
    ];
    const clusters = findClusters(memories, NOW);
    expect(clusters.map((c) => [c.kind, c.members.map((m) => m.text)])).toEqual([
      ["contradiction", ["The nightly CI job for billing is failing.", "The nightly CI job for billing is passing."]],
      ["expired_ephemera", ["CI run #4821 for PR #312 is failing on the e2e suite."]],
    ]);
    const actions = await judgeAll(clusters);
    expect(actions.filter((a) => a.action === "expire").map((a) => a.text)).toEqual(["CI run #4821 for PR #312 is failing on the e2e suite."]);
  });

  it("a value-shaped word that modifies a sentence-initial subject names the subject", () => {
    expect(rel("The amber-2 service runs 5 replicas.", "The amber-3 service runs 7 replicas.")).toBeUndefined();
    expect(rel("The amber-2 service runs 5 replicas.", "The amber-2 service runs 7 replicas.")).toBe("contradiction");
  });

  it("when both name several entities, a different first name is a different subject", () => {
    expect(rel("Project Zeta stores its data in Postgres.", "Project Eta stores its data in MySQL.")).toBeUndefined();
    expect(rel("Project Zeta stores its data in Postgres.", "Project Zeta stores its data in MySQL.")).toBe("contradiction");
  });

  it("grades are values only where the closed class of grade words appears", () => {
    expect(rel("The planner uses the large model tier.", "The planner uses the small model tier.")).toBe("contradiction");
    // Words outside the class stay frame words: another subject, not another value.
    expect(rel("The planner uses the large model tier.", "The router uses the large model tier.")).toBeUndefined();
    expect(rel("The planner writes verbose logs.", "The planner writes terse logs.")).toBeUndefined();
  });
});

describe("a supersede between claims that differ in value or polarity is impossible", () => {
  const subjects = ["billing", "search", "amber-relay", "zeta"];
  const claim = fc.record({
    frame: fc.constantFrom(...DEV_FRAMES, ...HELD_OUT_FRAMES),
    subject: fc.constantFrom(...subjects),
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    stateIndex: fc.nat(),
    disputeIndex: fc.nat(),
  });
  const rng = (seed: number): (() => number) => {
    let x = seed;
    return () => {
      x = (x * 1103515245 + 12345) % 2147483648;
      return x / 2147483648;
    };
  };
  const pairOf = (c: { frame: Frame; subject: string; seed: number; stateIndex: number; disputeIndex: number }): [string, string] => {
    const r = rng(c.seed);
    const v = c.frame.value(r, c.subject);
    const state = c.frame.states[c.stateIndex % c.frame.states.length] as Frame["states"][number];
    const dispute = c.frame.disputes[c.disputeIndex % c.frame.disputes.length] as Frame["disputes"][number];
    return [state(c.subject, v), dispute(c.subject, v, c.frame.other(r, v, c.subject))];
  };
  const member = (id: string, text: string) => ({ id, text, date: "2026-10-01T00:00:00.000Z", factType: "world" as const });

  it("whatever a judge says, enforceRules never emits it and apply's assertion refuses it", () => {
    fc.assert(
      fc.property(claim, fc.boolean(), (c, flip) => {
        const [state, dispute] = pairOf(c);
        const [loser, survivor] = flip ? [dispute, state] : [state, dispute];
        expect(canSupersede(loser, survivor)).toBe(false);
        expect(() => assertSupersedable(loser, survivor)).toThrow(/differ in value or polarity/);
        // Even filed as a near-duplicate cluster, with a judge resolving it: flagged instead.
        const cluster: CandidateCluster = { id: "near_duplicate:a", kind: "near_duplicate", members: [member("a", loser), member("b", survivor)], evidence: "test" };
        const out = enforceRules(cluster, [{ id: "a", action: "supersede", survivorId: "b" }, { id: "b", action: "keep" }]);
        expect(out.actions.some((a) => a.action === "supersede")).toBe(false);
        expect(out.actions.every((a) => a.action === "flag_contradiction")).toBe(true);
      }),
      { numRuns: 400, seed: 22 },
    );
  });

  it("restatements of one claim stay supersedable (development frames)", () => {
    const devClaim = fc.record({ frame: fc.constantFrom(...DEV_FRAMES), subject: fc.constantFrom(...subjects), seed: fc.integer({ min: 1, max: 1_000_000 }), stateIndex: fc.nat(), disputeIndex: fc.nat() });
    fc.assert(
      fc.property(devClaim, fc.nat(), (c, other) => {
        const r = rng(c.seed);
        const v = c.frame.value(r, c.subject);
        const a = (c.frame.states[c.stateIndex % c.frame.states.length] as Frame["states"][number])(c.subject, v);
        const b = (c.frame.states[other % c.frame.states.length] as Frame["states"][number])(c.subject, v);
        expect(canSupersede(a, b)).toBe(true);
      }),
      { numRuns: 200, seed: 22 },
    );
  });
});
