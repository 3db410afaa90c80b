import { describe, expect, it } from "vitest";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { analyzeText, defaultJudge, enforceRules, writeFileAtomic, type CandidateCluster, type Judge } from "@context-fold/memory-gardener-client";

const NOW = "2026-11-20T12:00:00.000Z";
const member = (id: string, text: string, date = "2026-10-01T00:00:00.000Z") => ({ id, text, date, factType: "world" as const });

const dispute: CandidateCluster = {
  id: "contradiction:a",
  kind: "contradiction",
  members: [member("a", "The auth endpoint is /v1/auth."), member("b", "The auth endpoint moved to /v2/auth.", "2026-11-01T00:00:00.000Z")],
  evidence: "same subject (auth endpoint), different endpoint: /v1/auth vs /v2/auth",
};
const dups: CandidateCluster = {
  id: "near_duplicate:c",
  kind: "near_duplicate",
  members: [member("c", "The billing service runs 5 replicas."), member("d", "We run 5 replicas of the billing service in the eu cluster.")],
  evidence: "same fact restated",
};

describe("the rules hold whatever a judge says", () => {
  it("a judge that picks the newer side of a dispute is overridden: every member flagged", () => {
    const out = enforceRules(dispute, [
      { id: "a", action: "supersede", survivorId: "b", reason: "newer wins" },
      { id: "b", action: "keep" },
    ]);
    expect(out.actions.map((a) => a.action)).toEqual(["flag_contradiction", "flag_contradiction"]);
    expect(out.overrides).toBe(2);
  });

  it("a flag on one member of any cluster flags all of them", () => {
    const out = enforceRules(dups, [{ id: "c", action: "flag_contradiction", reason: "they disagree" }, { id: "d", action: "keep" }]);
    expect(out.actions.every((a) => a.action === "flag_contradiction")).toBe(true);
  });

  it("expire outside ephemera, supersede to a non-member or to a superseded member, and missing verdicts become keep", () => {
    expect(enforceRules(dups, [{ id: "c", action: "expire" }, { id: "d", action: "keep" }]).actions[0]?.action).toBe("keep");
    expect(enforceRules(dups, [{ id: "c", action: "supersede", survivorId: "zzz" }, { id: "d", action: "keep" }]).actions[0]?.action).toBe("keep");
    const both = enforceRules(dups, [{ id: "c", action: "supersede", survivorId: "d" }, { id: "d", action: "supersede", survivorId: "c" }]);
    expect(both.actions.map((a) => a.action)).toEqual(["keep", "keep"]);
    expect(enforceRules(dups, []).actions.map((a) => a.action)).toEqual(["keep", "keep"]);
  });

  it("the default judge supersedes the less informative restatement and keeps the richer one", async () => {
    const [verdicts] = await defaultJudge.judgeBatch({ clusters: [dups], now: NOW });
    const out = enforceRules(dups, verdicts?.verdicts ?? []);
    expect(out.overrides).toBe(0);
    expect(out.actions.find((a) => a.id === "c")).toMatchObject({ action: "supersede", survivorId: "d" });
    expect(out.actions.find((a) => a.id === "d")?.action).toBe("keep");
  });

  it("a model-backed judge plugs in through the Judge interface", async () => {
    const lazy: Judge = { name: "keep-all", judgeBatch: (b) => Promise.resolve(b.clusters.map((c) => ({ clusterId: c.id, verdicts: c.members.map((m) => ({ id: m.id, action: "keep" as const })) }))) };
    const [v] = await lazy.judgeBatch({ clusters: [dispute], now: NOW });
    expect(enforceRules(dispute, v?.verdicts ?? []).actions.every((a) => a.action === "flag_contradiction")).toBe(true);
  });
});

describe("atomic phase files", () => {
  it("replaces the file whole and leaves no temp file", () => {
    const dir = tempDir();
    const path = join(dir, "sub", "phase.json");
    writeFileAtomic(path, "one\n");
    writeFileAtomic(path, "two\n");
    expect(readFileSync(path, "utf8")).toBe("two\n");
    expect(readdirSync(join(dir, "sub"))).toEqual(["phase.json"]);
    expect(existsSync(`${path}.tmp`)).toBe(false);
  });
});

describe("text analysis is linear on adversarial input", { timeout: LINEAR_TIME_MS }, () => {
  const MB = 1 << 20;
  it.each([
    ["digits", "1".repeat(MB)],
    ["dotted digits", "1.".repeat(MB / 2)],
    ["v + dots", `v${"1.".repeat(MB / 2)}x`],
    ["hashes", "#".repeat(MB)],
    ["at-handles", `@${"a-".repeat(MB / 2)}!`],
    ["slashes", "/".repeat(MB)],
    ["spaces", " ".repeat(MB)],
    ["quotes and brackets", "(\"'`".repeat(MB / 4)],
    ["many short tokens", "ci run #1 failing ".repeat(MB / 18)],
    ["host-like dotted words", `${"a1.".repeat(MB / 3)}!`],
    ["identifier-like dashed words", `a${"-1".repeat(MB / 2)}-`],
    ["camel case", `${"Ab".repeat(MB / 2)}1`],
    ["dates", `${"2026-12-01t".repeat(1)}${"1:".repeat(MB / 2)}x`],
    ["negations and prior markers", "not up from instead of from to ".repeat(MB / 32)],
  ])("%s (1 MB)", (_name, text) => {
    const a = analyzeText(text);
    expect(Array.isArray(a.subject)).toBe(true);
  });
});
