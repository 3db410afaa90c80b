// `context-fold eval`: ground truth read from the ledger, retention scoring, needles through recall,
// repeated compaction; floors asserted on generated sessions and on every real Pi session fixture.
import { writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { lineageBlocks, parseSessionText, readSession } from "@context-fold/ledger-reader";
import { generateSession, type Manifest, writeManifest } from "@context-fold/session-gen";
import { describeShared, LINEAR_TIME_MS, sessionFixtures, tempDir } from "@context-fold/test-support";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseEvalManifest } from "../src/eval/eval-manifest.js";
import { evaluateSession, type SessionEval } from "../src/eval/evaluate-session.js";
import { groundTruth, isCorrectionText, isHarnessCommand, parseCommitLine, pathForms, programsOf } from "../src/eval/ground-truth.js";
import { needleQuery } from "../src/eval/recall-check.js";
import { candidateOf, isErrorLineCandidate, isHexCandidate, isIdentifierCandidate, sampleNeedles } from "../src/eval/sample-needles.js";
import { scoreRetention } from "../src/eval/score-retention.js";
import { collapseWhitespace, haystackOf, holdsToken, holdsVerbatim, omissionLines } from "../src/eval/text-match.js";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

/** A clock that ticks 1 ms per reading: evaluation output is then byte-identical run to run. */
function tickClock(): () => number {
  let t = 0;
  return () => t++;
}

function failures(e: SessionEval): string {
  const r = e.single.retention;
  return JSON.stringify({
    file: e.file,
    founding: r.foundingRequest,
    commitsMissing: r.commits.missing,
    finalCommitsMissing: e.repeated?.final.retention.commits.missing,
    finalFounding: e.repeated?.final.retention.foundingRequest,
    needles: e.needlesViaRecall.results.filter((n) => !n.found),
  });
}

function expectFloors(e: SessionEval): void {
  const detail = failures(e);
  expect(e.floors.foundingRequest, detail).toBe(true);
  expect(e.floors.commits, detail).toBe(true);
  expect(e.floors.needlesViaRecall, detail).toBe(true);
}

describe("text matching", () => {
  it("verbatim ignores whitespace runs, not words", () => {
    const hay = haystackOf("- [Founding request] fix the\n  parser   please (#0)");
    expect(holdsVerbatim(hay, "fix the parser please")).toBe(true);
    expect(holdsVerbatim(hay, "fix the parser now")).toBe(false);
    expect(holdsVerbatim(hay, "   ")).toBe(false);
    expect(collapseWhitespace("  a \n\t b  ")).toBe("a b");
  });

  it("tokens do not match inside longer paths or hashes", () => {
    expect(holdsToken("Modified: src/cli/main.ts (#4)", "src/cli/main.ts")).toBe(true);
    expect(holdsToken("Modified: src/cli/main.ts (#4)", "main.ts")).toBe(false);
    expect(holdsToken("Modified: src/cli/main.ts.", "src/cli/main.ts")).toBe(true);
    expect(holdsToken("commit abc1234f", "abc1234")).toBe(false);
    expect(holdsToken("abc1234 then abc1234", "abc1234")).toBe(true);
  });

  it("omission lines are read wherever they sit", () => {
    const text = "- … and 37 more read files (recall: files)\n  … and 2 more commits (recall: commits)\n- … and x more (recall: y)\nno mark";
    expect(omissionLines(text)).toEqual([
      { count: 37, what: "more read files", recall: "files" },
      { count: 2, what: "more commits", recall: "commits" },
    ]);
  });
});

describe("ledger readings", () => {
  it("commit lines: `[branch (root-commit) hash] subject`, nothing else", () => {
    expect(parseCommitLine("[main 1a2b3c4] Fix the reader")).toEqual({ hash: "1a2b3c4", subject: "Fix the reader" });
    expect(parseCommitLine("[main (root-commit) 0123456789abcdef] init")).toEqual({ hash: "0123456789abcdef", subject: "init" });
    expect(parseCommitLine("[detached HEAD 9f9f9f9] wip")?.hash).toBe("9f9f9f9");
    expect(parseCommitLine("[1a2b3c4] no branch")).toBeNull();
    expect(parseCommitLine("[main XYZ1234] not hex")).toBeNull();
    expect(parseCommitLine("1a2b3c4 from git log")).toBeNull();
  });

  it("corrections by their opening words", () => {
    expect(isCorrectionText("No, actually keep the old signature")).toBe(true);
    expect(isCorrectionText("actually, can you revert that?")).toBe(true);
    expect(isCorrectionText("not what i wanted. a prose list")).toBe(true);
    expect(isCorrectionText("Don\u2019t touch the lockfile")).toBe(true);
    expect(isCorrectionText("Now wire it into the CLI")).toBe(false);
    expect(isCorrectionText("nothing else to do")).toBe(false);
  });

  it("programs of a command line (probes like grep are not unresolved errors)", () => {
    expect(programsOf("cd pkg && npm run check | tail -5; grep -n x y || echo none")).toEqual(["cd", "npm", "tail", "grep", "echo"]);
    expect(programsOf("")).toEqual([]);
    expect(programsOf('grep -n "a\\|b" f.ts | head')).toEqual(["grep", "head"]);
    expect(programsOf("find . -exec cat {} \\; -exec echo x \\;")).toEqual(["find"]);
    expect(programsOf("echo 'a;b' && npm test")).toEqual(["echo", "npm"]);
    expect(programsOf("&&&&||;;|".repeat(1 << 17))).toEqual([]);
  });

  it("a lone slash command is not the founding request", () => {
    expect(isHarnessCommand("/mode")).toBe(true);
    expect(isHarnessCommand("/")).toBe(true);
    expect(isHarnessCommand("  ")).toBe(true);
    expect(isHarnessCommand("/usr/lib is missing, fix it")).toBe(false);
    expect(isHarnessCommand("/mode\nthen read x")).toBe(false);
  });

  it("path spellings: as given, cwd-relative, without ./", () => {
    expect(pathForms("/home/dev/project/src/a.ts", "/home/dev/project")).toEqual(["/home/dev/project/src/a.ts", "src/a.ts"]);
    expect(pathForms("./src/a.ts", "/x")).toEqual(["./src/a.ts", "src/a.ts"]);
  });

  it("needle candidates: identifiers, hex, error lines", () => {
    expect(isIdentifierCandidate("renderBlock_BviwD")).toBe(true);
    expect(isIdentifierCandidate("load_index")).toBe(true);
    expect(isIdentifierCandidate("function")).toBe(false);
    expect(isIdentifierCandidate("12345678abc")).toBe(false);
    expect(isHexCandidate("0x2da970022002a73d")).toBe(true);
    expect(isHexCandidate("5b0bb8beedea61b7")).toBe(true);
    expect(isHexCandidate("deadbeefcafe")).toBe(false); // letters only: a word, not a constant
    expect(isErrorLineCandidate("src/a.ts(3,7): error TS2322: Type 'X' is not assignable")).toBe(true);
    expect(isErrorLineCandidate("all good here, nothing failed")).toBe(false);
    expect(needleQuery("Error: cursor drift at seq 7")).toBe('"Error: cursor drift at seq 7"');
    expect(needleQuery('say "hi" there')).toBe('say "hi" there');
    expect(needleQuery("/usr/lib")).toBe('"/usr/lib"');
    expect(needleQuery("renderBlock_BviwD")).toBe("renderBlock_BviwD");
  });

  it("adversarial 1 MB inputs finish (one per scanner)", { timeout: LINEAR_TIME_MS }, () => {
    const mb = 1 << 20;
    expect(parseCommitLine("[".repeat(mb))).toBeNull();
    expect(parseCommitLine(`[${"a ".repeat(mb / 2)}`)).toBeNull();
    expect(collapseWhitespace(" ".repeat(mb))).toBe("");
    expect(holdsToken("a".repeat(mb), "aa")).toBe(false);
    expect(omissionLines("… and ".repeat(mb / 6))).toEqual([]);
    expect(omissionLines(`… and 1 ${"(recall: ".repeat(mb / 9)}`)).toHaveLength(0);
    expect(isCorrectionText("n".repeat(mb))).toBe(false);
    expect(isHexCandidate("0".repeat(mb))).toBe(false);
    const header = JSON.stringify({ type: "session", version: 3, id: "adv", timestamp: "2026-01-01T00:00:00.000Z", cwd: "/p" });
    const entries = [
      { type: "message", id: "u1", parentId: null, timestamp: "2026-01-01T00:00:01.000Z", message: { role: "user", content: "go", timestamp: 1 } },
      {
        type: "message",
        id: "a1",
        parentId: "u1",
        timestamp: "2026-01-01T00:00:02.000Z",
        message: { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "x" } }], timestamp: 2 },
      },
      {
        type: "message",
        id: "r1",
        parentId: "a1",
        timestamp: "2026-01-01T00:00:03.000Z",
        message: { role: "toolResult", toolCallId: "c1", toolName: "bash", content: [{ type: "text", text: `${"[".repeat(mb)}\n${"a_B".repeat(mb / 3)}\n${"error ".repeat(mb / 6)}` }], isError: false, timestamp: 3 },
      },
    ];
    const session = parseSessionText(`${[header, ...entries.map((e) => JSON.stringify(e))].join("\n")}\n`);
    expect(groundTruth(session, null).commits).toEqual([]);
    expect(sampleNeedles(session, null)).toEqual([]);
    const big = lineageBlocks(session).find((b) => b.kind === "toolResult");
    expect(big === undefined ? "none" : candidateOf(big, "identifier")).toBeUndefined();
  });
});

describe("retention scoring", () => {
  const truth = {
    cutEntryId: null,
    windowBlocks: 10,
    foundingRequest: { text: "Build the\nindexer", index: 0 },
    corrections: [{ text: "No, use arrays", index: 5 }],
    modifiedFiles: [
      { path: "/p/src/a.ts", forms: ["/p/src/a.ts", "src/a.ts"], index: 2 },
      { path: "/p/src/b.ts", forms: ["/p/src/b.ts", "src/b.ts"], index: 3 },
      { path: "/p/src/c.ts", forms: ["/p/src/c.ts", "src/c.ts"], index: 4 },
    ],
    commits: [
      { hash: "1a2b3c4", subject: "one", index: 6 },
      { hash: "5d6e7f8", subject: "two", index: 7 },
    ],
    unresolvedErrors: [{ text: "pnpm   test", index: 8, source: "command" as const }],
    errorsInTail: 0,
  };

  it("named, counted with a pointer, and lost are told apart", () => {
    const summary = "[Session Goal]\n- Build the\n  indexer (#0)\n- Modified: src/a.ts (#2)\n- … and 1 more modified files (recall: files)\n- 1a2b3c4: one (#6)\n- [ERROR] pnpm test → failed (#8)";
    const r = scoreRetention(truth, [], summary, "Corrections, verbatim:\n- No, use arrays (#5)");
    expect(r.foundingRequest).toEqual({ expected: true, verbatim: true, inSummary: true, inDigest: false });
    expect(r.corrections).toMatchObject({ n: 1, named: 1, namedInSummary: 0, counted: 0, missing: [] });
    expect(r.modifiedFiles).toMatchObject({ n: 3, named: 1, counted: 1, missing: ["/p/src/c.ts"] });
    expect(r.commits).toMatchObject({ n: 2, named: 1, counted: 0, missing: ["5d6e7f8 two"] });
    expect(r.unresolvedErrors).toMatchObject({ n: 1, named: 1, inTail: 0 });
  });

  it("a clipped founding request is not verbatim", () => {
    const r = scoreRetention(truth, [], "- Build the… (clipped; recall #0)", "");
    expect(r.foundingRequest.verbatim).toBe(false);
  });
});

describe("eval on generated sessions", () => {
  const dir = tempDir("cli-eval-");
  const cases = [
    { seed: 3, turns: 40 },
    { seed: 11, turns: 90 },
    { seed: 29, turns: 160 },
    { seed: 41, size: 1_200_000 },
  ];
  const made: { file: string; manifestFile: string; manifest: Manifest }[] = [];
  beforeAll(async () => {
    for (const c of cases) {
      const file = join(dir, `s${String(c.seed)}.jsonl`);
      const manifestFile = join(dir, `s${String(c.seed)}.json`);
      const manifest = await generateSession(file, c.turns === undefined ? { seed: c.seed, size: c.size } : { seed: c.seed, turns: c.turns });
      await writeManifest(manifestFile, manifest);
      made.push({ file, manifestFile, manifest });
    }
  });

  it("floors hold after one compaction, after 5 rounds, and after 10 rounds on a 1,200-token budget (founding request, commits, needles via recall)", async () => {
    for (const { file, manifest } of made) {
      const session = await readSession(file);
      const e = await evaluateSession(session, { manifest: parseEvalManifest(file, manifest), rounds: 5, clock: tickClock() });
      expectFloors(e);
      expectFloors(await evaluateSession(session, { manifest: parseEvalManifest(file, manifest), rounds: 10, budget: 1200, clock: tickClock() }));
      expect(e.needleSource).toBe("manifest");
      expect(e.needlesViaRecall.n).toBe(manifest.needles.length);
      expect(e.needlesViaRecall.maxCalls).toBeLessThanOrEqual(2);
      expect(e.repeated?.rounds).toHaveLength(5);
      expect(e.single.retention.commits.n).toBeGreaterThan(0);
      expect(e.single.summaryTokens).toBeLessThan(e.single.tokensBefore);
    }
  });

  it("the ledger readings agree with the generator's manifest", async () => {
    for (const { file, manifest } of made) {
      const session = await readSession(file);
      const whole = groundTruth(session, null, parseEvalManifest(file, manifest));
      expect(whole.foundingRequest?.text).toBe(manifest.foundingRequest);
      const corrections = whole.corrections.map((c) => c.text);
      for (const c of manifest.corrections) expect(corrections).toContain(c);
      const hashes = whole.commits.map((c) => c.hash);
      for (const c of manifest.commits) expect(hashes).toContain(c.hash);
      const files = whole.modifiedFiles.flatMap((f) => f.forms);
      for (const f of [...manifest.modifiedFiles, ...manifest.createdFiles]) expect(files).toContain(f);
      expect(whole.unresolvedErrors.map((x) => x.text)).toEqual(manifest.errorsOpenAtEnd);
    }
  });

  it("with a seed index beside the session, every anchored needle comes back through span recall, verified", async () => {
    const m = made[1];
    if (m === undefined) throw new Error("no session generated");
    const before = await evaluateSession(await readSession(m.file), { manifest: parseEvalManifest(m.manifestFile, m.manifest), clock: tickClock() });
    expect(before.needlesViaSpanRecall).toBeNull();
    const indexed = await cli(["index", m.file]);
    expect(indexed.exit).toBe(0);
    const e = await evaluateSession(await readSession(m.file), { manifest: parseEvalManifest(m.manifestFile, m.manifest), clock: tickClock() });
    const anchored = m.manifest.needles.filter((n) => n.anchor !== undefined && n.onLineage).length;
    expect(anchored).toBeGreaterThan(0);
    expect(e.needlesViaSpanRecall?.n).toBe(anchored);
    expect(e.needlesViaSpanRecall?.found, JSON.stringify(e.needlesViaSpanRecall?.results.filter((r) => !r.found))).toBe(anchored);
  });

  it("--round-facts lineage re-derives every round from the whole lineage", async () => {
    const m = made[0];
    if (m === undefined) throw new Error("no session generated");
    const r = await cli(["eval", m.file, "--needles", m.manifestFile, "--rounds", "4", "--round-facts", "lineage", "--json"]);
    expect(r.exit).toBe(0);
    const doc = JSON.parse(r.stdout) as { sessions: SessionEval[] };
    expect(doc.sessions[0]?.repeated?.roundFacts).toBe("lineage");
    expect(doc.sessions[0]?.repeated?.rounds.map((x) => x.round)).toEqual([1, 2, 3, 4]);
    const bad = await cli(["eval", m.file, "--rounds", "2", "--round-facts", "sideways"]);
    expect(bad.exit).toBe(2);
  });

  it("same input, same result (with a fixed clock)", async () => {
    const first = made[0];
    if (first === undefined) throw new Error("no session generated");
    const session = await readSession(first.file);
    const manifest = parseEvalManifest(first.file, first.manifest);
    const a = JSON.stringify(await evaluateSession(session, { manifest, rounds: 3, clock: tickClock() }));
    const b = JSON.stringify(await evaluateSession(await readSession(first.file), { manifest, rounds: 3, clock: tickClock() }));
    expect(a).toBe(b);
  });

  it("CLI --json: one document, exit 0 when the floors hold", async () => {
    const args = made.flatMap((m) => [m.file]);
    const r = await cli(["eval", ...args, ...made.flatMap((m) => ["--needles", m.manifestFile]), "--rounds", "3", "--json"]);
    expect(r.stderr).toBe("");
    expect(r.exit).toBe(0);
    const doc = JSON.parse(r.stdout) as { sessions: SessionEval[]; skipped: unknown[]; floorsHeld: boolean };
    expect(doc.floorsHeld).toBe(true);
    expect(doc.sessions.map((s) => s.file)).toEqual(args);
    expect(doc.sessions.every((s) => s.needleSource === "manifest" && s.repeated?.rounds.length === 3)).toBe(true);
    expect(Object.keys(doc.sessions[0] ?? {})).toEqual(
      expect.arrayContaining(["file", "sessionId", "single", "needlesViaRecall", "repeated", "floors", "times"]),
    );
  });

  it("CLI human table; sampled needles without a manifest", async () => {
    const m = made[1];
    if (m === undefined) throw new Error("no session generated");
    const r = await cli(["eval", m.file]);
    expect(r.exit).toBe(0);
    expect(r.stdout).toMatch(/^session\s+run\s+goal\s+corrections\s+files\s+commits\s+errors/);
    expect(r.stdout).toMatch(/sampled needles/);
    expect(r.stdout).toMatch(/floors: founding request ok, commits named\+counted ok, needles via recall ok/);
  });

  it("usage errors are exit 2 with a message", async () => {
    const m = made[0];
    const other = made[1];
    if (m === undefined || other === undefined) throw new Error("no session generated");
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{ nope");
    for (const args of [
      [m.file, "--rounds", "0"],
      [m.file, "--rounds", "x"],
      [m.file, "--needles", join(dir, "missing.json")],
      [m.file, "--needles", bad],
      [m.file, "--needles", other.manifestFile],
      [join(dir, "missing.jsonl")],
    ]) {
      const r = await cli(["eval", ...args]);
      expect(r.exit, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/^context-fold: /);
    }
  });
});

describeShared("eval on every real Pi session fixture", () => {
  const runs = sessionFixtures().flatMap((file) => [
    { name: basename(file), file, rounds: 3, budget: undefined },
    { name: basename(file), file, rounds: 10, budget: 1200 },
  ]);
  it.each(runs)("$name (rounds $rounds, budget $budget): floors hold (founding request, commits, needles via recall)", async ({ file, rounds, budget }) => {
    const session = await readSession(file);
    const e = await evaluateSession(session, { rounds, clock: tickClock(), ...(budget === undefined ? {} : { budget }) });
    expectFloors(e);
    expect(e.needlesViaRecall.maxCalls).toBeLessThanOrEqual(2);
  });
});
