// Scoring against hand-written truth files: the file format's checks, the scoring rules of
// ../shared/fixtures/real/README.md on small hand-made truth + summary inputs (each rule with a case that
// must not count), the query builders, pairing by sha256, and the CLI's --truth and skipped handling.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateSession } from "@context-fold/session-gen";
import { describeShared, LINEAR_TIME_MS, sharedFixture, tempDir } from "@context-fold/test-support";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { EvalInputError } from "../src/eval/eval-manifest.js";
import { errorKeyWords, namesError, namesFile, sameEntry, scoreTruth, type TruthScoringInput } from "../src/eval/score-truth.js";
import { holdsHashPrefix, holdsPathTail } from "../src/eval/text-match.js";
import { parseTruthFile, type SessionTruth } from "../src/eval/truth-file.js";
import { pairTruths } from "../src/eval/truth-pairing.js";
import { distinctiveQuery, plainWords, questionQuery } from "../src/eval/truth-queries.js";
import type { EvalDocument } from "../src/commands/eval.js";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

const SHA = "a".repeat(64);

/** A small truth file as JSON, fields overridable. */
function truthJson(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    sessionFile: "s.jsonl",
    sha256: SHA,
    entries: 10,
    cwd: "/work/app (where the user ran it)",
    foundingRequest: { entryId: "u1", line: 2, text: "Build the\nindexer please" },
    userDecisions: [
      { entryId: "u2", line: 4, text: "Use SQLite, not Postgres", key: "SQLite Postgres", kind: "decision", importance: "high" },
      { entryId: "u3", line: 6, text: "keep the API stable", key: "API stable", kind: "constraint", importance: "medium" },
      { entryId: null, line: 8, text: "nice weather today", key: "weather", kind: "fact", importance: "low" },
    ],
    modifiedFiles: ["/work/app/src/db.ts", "README.md", "/tmp/scratch.py"],
    notFiles: [
      { string: "a/src/db.ts", why: "diff prefix" },
      { string: "https://example.com/x", why: "URL" },
      { string: "/work/app/src/db.ts:10-20", why: "line range" },
    ],
    commits: [{ hash: "1a2b3c4d5e", subject: "add db", evidence: { entryId: "r9", line: 9 } }],
    errorsOpenAtEnd: [{ entryId: "r7", line: 7, text: "`pnpm test` fails: TS2307 Cannot find module 'uuid' (src/db.ts)" }],
    questions: [
      { question: "Which port did the dev server listen on?", answer: "4321", evidence: { entryId: "r5", line: 5 } },
      { question: "What version of SQLite was installed?", answer: "3.45.1", evidence: { entryId: null, line: 11 } },
    ],
    ...over,
  };
}

function truth(over: Record<string, unknown> = {}): SessionTruth {
  return parseTruthFile("t.truth.json", truthJson(over));
}

function input(over: Partial<TruthScoringInput> = {}): TruthScoringInput {
  return {
    summary: "",
    digest: "",
    cwd: "/work/app",
    lists: { facts: [], summaryFiles: [], seedIndexFiles: [] },
    inTail: () => false,
    firstPage: () => [],
    ...over,
  };
}

describe("truth file format", () => {
  it("reads the fields the scoring uses; cwd keeps only its leading absolute path; key words split", () => {
    const t = truth();
    expect(t.cwd).toBe("/work/app");
    expect(t.decisions[0]?.key).toEqual(["SQLite", "Postgres"]);
    expect(t.decisions[2]).toMatchObject({ entryId: null, line: 8 });
    expect(t.commits[0]).toEqual({ hash: "1a2b3c4d5e", subject: "add db", evidence: { entryId: "r9", line: 9 } });
    expect(t.errorsOpenAtEnd[0]?.key).toBeNull();
    expect(truth({ foundingRequest: null }).foundingRequest).toBeNull();
    expect(truth({ cwd: "relative/dir" }).cwd).toBeNull();
  });

  it("the project's truth files parse, each with enough decisions and questions", () => {
    for (const n of ["pi-mono-history__session", "pi-mono__large-session"]) {
      const file = join(import.meta.dirname, "../../../tools/eval/truth", `${n}.truth.json`);
      const t = parseTruthFile(file, JSON.parse(readFileSync(file, "utf8")));
      expect(t.decisions.length).toBeGreaterThanOrEqual(10);
      expect(t.questions.length).toBeGreaterThanOrEqual(8);
      expect(t.foundingRequest).not.toBeNull();
    }
    // Written for the question scores (issue 19): questions, a selection of decisions, every commit.
    const file = join(import.meta.dirname, "../../../tools/eval/truth", "pi-mono__before-compaction.truth.json");
    const t = parseTruthFile(file, JSON.parse(readFileSync(file, "utf8")));
    expect(t.questions.length).toBeGreaterThanOrEqual(8);
    expect(t.commits.length).toBeGreaterThan(20);
    expect(t.foundingRequest).not.toBeNull();
  });

  it("refuses what the scoring cannot trust, naming the field", () => {
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ sha256: "xyz" }, /sha256 must be 64 hex digits/],
      [{ userDecisions: [{ entryId: "u", line: 1, text: "use arrays", key: "arrays lists", kind: "decision", importance: "high" }] }, /key word "lists" does not occur/],
      [{ userDecisions: [{ entryId: "u", line: 1, text: "x y", key: "x", kind: "wish", importance: "high" }] }, /kind must be one of/],
      [{ userDecisions: [{ entryId: "u", line: 1, text: "x y", key: "x", kind: "fact", importance: "urgent" }] }, /importance must be/],
      [{ userDecisions: [{ entryId: null, line: null, text: "x y", key: "x", kind: "fact", importance: "low" }] }, /needs an entryId or a line/],
      [{ questions: [{ question: "q?", answer: "a" }] }, /questions\[0\] must be/],
      [{ commits: [{ hash: "not-hex" }] }, /commits\[0\]\.hash must be 7-40 hex digits/],
      [{ modifiedFiles: "src/a.ts" }, /modifiedFiles must be an array/],
    ];
    for (const [over, message] of bad) {
      let caught: unknown;
      try {
        truth(over);
      } catch (error) {
        caught = error;
      }
      expect(caught, JSON.stringify(over)).toBeInstanceOf(EvalInputError);
      expect((caught as EvalInputError).code).toBe("TRUTH_INVALID");
      expect((caught as Error).message).toMatch(message);
    }
    expect(() => parseTruthFile("t", [])).toThrow(/a truth file is a JSON object/);
  });
});

describeShared("the shared truth files", () => {
  it.each(["castai-kimchi-dev-910d402__session", "pinion05-act-3ae80f5__03-raddit-dashboard-pr", "pinion05-act-3ae80f5__01-youtube-noheader"])("%s parses", (name) => {
    const file = sharedFixture("real", `${name}.truth.json`);
    const t = parseTruthFile(file, JSON.parse(readFileSync(file, "utf8")));
    expect(t.decisions.length).toBeGreaterThan(0);
  });
});

describe("scoring rules (../shared/fixtures/real/README.md)", () => {
  it("a decision survives only when every key word appears, case-insensitive, in summary plus digest", () => {
    const t = truth();
    const kept = scoreTruth(t, input({ summary: "- [Decision] use sqlite, not postgres (#4)", digest: "keep the api STABLE" }));
    expect(kept.decisions.highMedium).toEqual({ n: 2, kept: 2, score: 1 });
    expect(kept.decisions.low).toEqual({ n: 1, kept: 0, score: 0 });
    expect(kept.decisions.all).toEqual({ n: 3, kept: 2, score: 0.667 });
    const half = scoreTruth(t, input({ summary: "use sqlite", inTail: (r) => r.entryId === "u2" }));
    expect(half.decisions.high).toEqual({ n: 1, kept: 0, score: 0 });
    expect(half.decisions.missing[0]).toMatchObject({ line: 4, importance: "high", key: "SQLite Postgres", missingWords: ["Postgres"], inTail: true });
    expect(half.floors.decisions).toEqual({ value: 0, floor: 0.9, op: ">=", held: false });
  });

  it("a file is named by its path, its cwd-relative path or its basename as a path's last part", () => {
    expect(namesFile("- Modified: src/db.ts (#3)", "/work/app/src/db.ts", ["/work/app"])).toBe(true);
    expect(namesFile("edited /work/app/src/db.ts.", "/work/app/src/db.ts", ["/work/app"])).toBe(true);
    expect(namesFile("- Modified: lib/db.ts (#3)", "/work/app/src/db.ts", ["/work/app"])).toBe(true); // basename, as the README allows
    expect(namesFile("docs/README.md", "README.md", [])).toBe(true);
    expect(namesFile("see myREADME.md and README.md5", "README.md", [])).toBe(false);
    expect(namesFile("db.tsx and db.ts_old", "/work/app/src/db.ts", ["/work/app"])).toBe(false);
    const t = truth();
    const r = scoreTruth(t, input({ summary: "Modified: src/db.ts, README.md" }));
    expect(r.modifiedFiles).toEqual({ n: 3, kept: 2, score: 0.667, missing: ["/tmp/scratch.py"] });
    expect(r.floors.modifiedFiles.held).toBe(false);
  });

  it("junk is a notFiles string listed as a file, in each of the three lists, compared after dropping the cwd", () => {
    const t = truth();
    const r = scoreTruth(
      t,
      input({
        lists: {
          facts: ["src/db.ts:10-20", "src/db.ts"], // the cwd-relative form of a junk string
          summaryFiles: ["a/src/db.ts"],
          seedIndexFiles: ["https://example.com/x", "https://example.com/x/y", "b/a/src/db.ts"], // only the exact one
        },
      }),
    );
    expect(r.junk).toEqual({ count: 3, facts: ["/work/app/src/db.ts:10-20"], summaryFiles: ["a/src/db.ts"], seedIndexFiles: ["https://example.com/x"] });
    expect(r.floors.junk).toEqual({ value: 3, floor: 0, op: "<=", held: false });
    const collapsed = scoreTruth(t, input({ lists: { facts: ["https:/example.com/x"], summaryFiles: ["./a/src//db.ts"], seedIndexFiles: ["https://example.com"] } }));
    expect(collapsed.junk).toMatchObject({ count: 2, facts: ["https://example.com/x"], summaryFiles: ["a/src/db.ts"], seedIndexFiles: [] });
    const clean = scoreTruth(t, input({ lists: { facts: ["src/db.ts"], summaryFiles: null, seedIndexFiles: ["README.md"] } }));
    expect(clean.junk).toEqual({ count: 0, facts: [], summaryFiles: null, seedIndexFiles: [] });
    expect(clean.floors.junk.held).toBe(true);
  });

  it("a commit is named by its 7-character hash (a longer form of it too), not inside another token", () => {
    expect(holdsHashPrefix("- 1a2b3c4: add db (#9)", "1a2b3c4")).toBe(true);
    expect(holdsHashPrefix("commit 1A2B3C4D5E6F", "1a2b3c4")).toBe(true);
    expect(holdsHashPrefix("x1a2b3c4 and 1a2b3c4z and 1a2b3c", "1a2b3c4")).toBe(false);
    const t = truth();
    expect(scoreTruth(t, input({ digest: "Commits: 1a2b3c4 add db" })).commits).toEqual({ n: 1, kept: 1, score: 1, missing: [] });
    const lost = scoreTruth(t, input({ summary: "1a2b3c" , inTail: (r) => r.line === 9 }));
    expect(lost.commits.missing).toEqual([{ text: "1a2b3c4 add db", inTail: true }]);
    expect(lost.floors.commits.held).toBe(false);
    expect(scoreTruth(truth({ commits: [] }), input()).floors.commits).toEqual({ value: 1, floor: 1, op: ">=", held: true });
  });

  it("an open error is named by two of its identifying words (or all words of its key)", () => {
    const error = { text: "`pnpm test` fails: TS2307 Cannot find module 'uuid' (src/db.ts)", key: null };
    expect(errorKeyWords(error.text)).toEqual(["pnpm test", "TS2307", "uuid", "src/db.ts"]);
    expect(errorKeyWords('`astro check` reports 328 (TS7026) errors; "too frail" said the user\'s lead')).toEqual(["astro check", "too frail", "328", "TS7026"]);
    expect(namesError("ran pnpm test: TS2307", error)).toBe(true);
    expect(errorKeyWords("Headless browser cannot reach localhost/127.0.0.1 (net::ERR_CONNECTION_REFUSED)")).toEqual(["localhost/127.0.0.1", "net::ERR_CONNECTION_REFUSED"]);
    expect(namesError("[error] ts2307: cannot find module 'uuid'", error)).toBe(true);
    expect(namesError("[error] ts2307 somewhere", error)).toBe(false);
    expect(namesError("the tests fail", error)).toBe(false);
    expect(namesError("typecheck broke", { text: "typecheck broke", key: ["typecheck", "broke"] })).toBe(true);
    expect(namesError("typecheck", { text: "typecheck broke", key: ["typecheck", "broke"] })).toBe(false);
    // no identifying word: three long words
    const prose = { text: "the release was never published because the registry rejected it", key: null };
    expect(namesError("release never published: registry rejected", prose)).toBe(true);
    expect(namesError("release published", prose)).toBe(false);
    const r = scoreTruth(truth(), input({ summary: "[ERROR] TS2307 in src/db.ts" }));
    expect(r.openErrors).toEqual({ n: 1, kept: 1, score: 1, missing: [] });
  });

  it("the founding request must be verbatim (whitespace runs aside) in the summary or the digest", () => {
    const t = truth();
    expect(scoreTruth(t, input({ digest: "Build the indexer   please" })).foundingRequest).toEqual({ expected: true, verbatim: true, inSummary: false, inDigest: true, inTail: false });
    const clipped = scoreTruth(t, input({ summary: "Build the indexer…" }));
    expect(clipped.foundingRequest.verbatim).toBe(false);
    expect(clipped.floors.foundingRequest.held).toBe(false);
    expect(scoreTruth(truth({ foundingRequest: null }), input()).floors.foundingRequest.held).toBe(true);
  });

  it("a question is answered when its evidence entry is on the first page of a search with the question's words", () => {
    const t = truth();
    const typed: string[] = [];
    const r = scoreTruth(
      t,
      input({
        firstPage: (q) => {
          typed.push(q);
          if (q.includes("port")) return [{ entryId: "x", line: 1 }, { entryId: "r5", line: 99 }];
          if (q.includes("SQLite")) return [{ entryId: "whatever", line: 12 }];
          return [{ entryId: "y", line: 11 }];
        },
      }),
    );
    expect(typed.slice(0, 2)).toEqual(["port dev server listen", "version SQLite installed"]);
    expect(r.questionsByQuestion).toMatchObject({ n: 2, kept: 1, score: 0.5 });
    expect(r.questionsByQuestion.results[0]).toEqual({ question: "Which port did the dev server listen on?", query: "port dev server listen", found: true, rank: 2 });
    expect(r.questionsByQuestion.results[1]?.found).toBe(false); // line 12 is not the evidence line 11
    expect(r.questionsByAnswer).toMatchObject({ n: 2, kept: 1 }); // "3.45.1" → line 11 found; "4321" → not
    expect(sameEntry({ entryId: "r5", line: 1 }, { entryId: "r5", line: null })).toBe(true);
    expect(sameEntry({ entryId: "r6", line: 5 }, { entryId: null, line: 5 })).toBe(true);
    expect(sameEntry({ entryId: "r6", line: 6 }, { entryId: "r5", line: 5 })).toBe(false);
  });

  it("nothing to keep scores 1; every floor held when all is kept", () => {
    const empty = truth({ userDecisions: [], modifiedFiles: [], commits: [], errorsOpenAtEnd: [], questions: [], foundingRequest: null });
    const r = scoreTruth(empty, input());
    expect(r.decisions.all).toEqual({ n: 0, kept: 0, score: 1 });
    expect(r.floors.held).toBe(true);
    const all = scoreTruth(
      truth(),
      input({
        summary: "Build the indexer please. SQLite over Postgres; API stable; weather. Modified: src/db.ts README.md /tmp/scratch.py. 1a2b3c4. TS2307 src/db.ts",
      }),
    );
    expect(all.floors.held).toBe(true);
    expect(Object.values(all.floors).filter((f) => typeof f === "object" && !f.held)).toEqual([]);
  });
});

describe("queries typed into recall (issue 19)", () => {
  it("plain words drop surrounding punctuation only", () => {
    expect(plainWords(`Which "User-Agent" string (kimchi/0.0.1) did it carry?`)).toEqual(["Which", "User-Agent", "string", "kimchi/0.0.1", "did", "it", "carry"]);
  });
  it("a question becomes its five longest non-stop words, in its own order", () => {
    expect(questionQuery("Which User-Agent string did the requests carry to the proxy server?")).toBe("User-Agent string requests carry server");
    expect(questionQuery("What is it?")).toBe("");
    expect(questionQuery("Why was it slow?")).toBe("slow");
  });
  it("a needle becomes its three rarest words; words no block holds come last", () => {
    const df: Record<string, number> = { connection: 40, refused: 3, port: 12, "5432": 1, postgres: 9 };
    const lookup = (w: string): number => df[w.toLowerCase()] ?? 0;
    expect(distinctiveQuery("connection refused on port 5432 by postgres", lookup)).toBe("refused 5432 postgres");
    expect(distinctiveQuery("zzz-unknown refused", lookup)).toBe("zzz-unknown refused");
    expect(distinctiveQuery("unknownlong refused port postgres", lookup)).toBe("refused port postgres");
    expect(distinctiveQuery("the of", lookup)).toBe("");
    // the index's own words: lower-cased whole tokens, a compound kept whole
    expect(distinctiveQuery("Refused: PORT src/db/pool.ts(12,5)", (w) => (w === "src/db/pool.ts" ? 1 : lookup(w)))).toBe("refused port src/db/pool.ts");
  });
});

describe("pairing truth files with sessions by sha256", () => {
  const t1 = { ...truth(), file: "dir/one.truth.json", sessionFile: "one.jsonl", sha256: "1".repeat(64) };
  const t2 = { ...truth(), file: "dir/two.truth.json", sessionFile: "two.jsonl", sha256: "2".repeat(64) };
  it("pairs by hash whatever the file is called; a folder's truth for a session not given is left out", () => {
    const p = pairTruths([{ file: "x/renamed.jsonl", sha256: "1".repeat(64) }], [
      { truth: t1, fromDir: true },
      { truth: t2, fromDir: true },
    ]);
    expect(p.bySession.get("x/renamed.jsonl")?.file).toBe("dir/one.truth.json");
    expect(p.unused).toEqual(["dir/two.truth.json"]);
  });
  it("refuses a named truth file that matches no session, a session of the same name with another hash, and two truths for one session", () => {
    const codeOf = (f: () => unknown): string => {
      try {
        f();
      } catch (error) {
        return `${(error as EvalInputError).code}: ${(error as Error).message}`;
      }
      return "no error";
    };
    expect(codeOf(() => pairTruths([{ file: "a.jsonl", sha256: "9".repeat(64) }], [{ truth: t1, fromDir: false }]))).toMatch(/^TRUTH_UNMATCHED: .*matches none of the sessions given/);
    expect(codeOf(() => pairTruths([{ file: "d/one.jsonl", sha256: "9".repeat(64) }], [{ truth: t1, fromDir: true }]))).toMatch(
      /^TRUTH_UNMATCHED: dir\/one\.truth\.json is for one\.jsonl with sha256 1{64}, but d\/one\.jsonl hashes to 9{64}/,
    );
    expect(codeOf(() => pairTruths([{ file: "a.jsonl", sha256: "1".repeat(64) }], [{ truth: t1, fromDir: false }, { truth: { ...t1, file: "other.truth.json" }, fromDir: true }]))).toMatch(/has two truth files/);
  });
});

describe("text matching used by the truth scoring is linear", { timeout: LINEAR_TIME_MS }, () => {
  it("a 1 MB run of near-misses and of unmatched quotes", () => {
    expect(errorKeyWords("`".repeat(1_000_000))).toEqual([]);
    expect(errorKeyWords(`"a${"`x".repeat(300_000)}`).length).toBeGreaterThan(0);
    const hay = "README.mdx".repeat(100_000);
    expect(holdsPathTail(hay, "README.md")).toBe(false);
    expect(holdsHashPrefix("g1a2b3c4".repeat(120_000), "1a2b3c4")).toBe(false);
  });
});

describe("CLI: eval --truth and files that are not sessions", () => {
  const dir = tempDir("cli-eval-truth-");
  let session = "";
  let sha = "";
  beforeAll(async () => {
    session = join(dir, "s.jsonl");
    await generateSession(session, { seed: 5, turns: 30 });
    sha = createHash("sha256").update(readFileSync(session)).digest("hex");
  });

  function writeTruth(name: string, over: Record<string, unknown>): string {
    const file = join(dir, name);
    writeFileSync(file, JSON.stringify(truthJson({ sessionFile: "s.jsonl", sha256: sha, ...over })));
    return file;
  }

  it("scores a session against its truth file; the JSON carries the truth block and its floors", async () => {
    const file = writeTruth("s.truth.json", {});
    const r = await cli(["eval", session, "--truth", file, "--json"]);
    const doc = JSON.parse(r.stdout) as EvalDocument;
    expect(doc.sessions).toHaveLength(1);
    const t = doc.sessions[0]?.truth;
    expect(t?.truthFile).toBe(file);
    expect(Object.keys(t ?? {})).toEqual(["truthFile", "foundingRequest", "decisions", "modifiedFiles", "junk", "commits", "openErrors", "questionsByQuestion", "questionsByAnswer", "floors"]);
    // The hand-made truth is not this session's: its floors cannot hold, so the command reports findings.
    expect(t?.floors.held).toBe(false);
    expect(doc.sessions[0]?.floors.truth).toBe(false);
    expect(doc.floorsHeld).toBe(false);
    expect(r.exit).toBe(1);
    expect(doc.sessions[0]?.needlesViaWords.n).toBe(doc.sessions[0]?.needlesViaRecall.n);
    const human = await cli(["eval", session, "--truth", file]);
    expect(human.stdout).toMatch(/truth s\.truth\.json: founding request/);
    expect(human.stdout).toMatch(/truth floors: decisions ≥ 0\.9: (held|NOT held), files ≥ 0\.95/);
  });

  it("exit 2 with a clear message: truth for another file, a stale hash, an invalid truth file", async () => {
    const other = writeTruth("other.truth.json", { sha256: "f".repeat(64), sessionFile: "elsewhere.jsonl" });
    const stale = writeTruth("stale.truth.json", { sha256: "e".repeat(64) });
    const broken = join(dir, "broken.truth.json");
    writeFileSync(broken, "{");
    for (const [file, message] of [
      [other, /matches none of the sessions given/],
      [stale, /s\.jsonl hashes to [0-9a-f]{64}: the session is not the file the truth was written for/],
      [broken, /broken\.truth\.json is not JSON/],
      [join(dir, "none.truth.json"), /cannot read --truth/],
    ] as const) {
      const r = await cli(["eval", session, "--truth", file]);
      expect(r.exit, file).toBe(2);
      expect(r.stderr).toMatch(message);
    }
  });

  it("unreadable or refused files are skipped with their reason and the rest scored; nothing scored is exit 2, never an empty success", async () => {
    const fragment = join(dir, "fragment.jsonl");
    writeFileSync(fragment, readFileSync(session, "utf8").split("\n").slice(1).join("\n"));
    const notSession = join(dir, "notes.txt");
    writeFileSync(notSession, "hello\n");
    const missing = join(dir, "missing.jsonl");

    const mixed = await cli(["eval", fragment, session, notSession, missing, "--json"]);
    const doc = JSON.parse(mixed.stdout) as EvalDocument;
    expect(doc.sessions.map((s) => s.file)).toEqual([session]);
    expect(doc.skipped.map((s) => s.file)).toEqual([fragment, notSession, missing]);
    expect(doc.skipped[0]?.reason).toMatch(/not the \{"type":"session"\} header/);
    expect(doc.skipped[0]?.reason).toMatch(/\(--fragment scores it as a fragment\)$/);
    expect(doc.skipped[2]?.reason).toMatch(/no such file/);
    expect(mixed.exit).toBe(0); // the scored session's floors hold; the skipped are named on stderr
    expect(mixed.stderr).toMatch(/fragment\.jsonl: skipped, not scored/);
    expect(mixed.stderr).toMatch(/missing\.jsonl: skipped, not scored/);

    const none = await cli(["eval", fragment, missing, "--json"]);
    const empty = JSON.parse(none.stdout) as EvalDocument;
    expect(empty.sessions).toEqual([]);
    expect(empty.floorsHeld).toBe(false);
    expect(none.exit).toBe(2);
    expect(none.stderr).toMatch(/no session was scored \(2 skipped\)/);
    const human = await cli(["eval", fragment]);
    expect(human.exit).toBe(2);
    expect(human.stdout).toMatch(/no session was scored/);
  });

  it("--fragment scores a headerless file (as facts and recall read it) against the truth its hash matches, rounds included", async () => {
    const fragment = join(dir, "frag3.jsonl");
    writeFileSync(fragment, readFileSync(session, "utf8").split("\n").slice(1).join("\n"));
    const fragSha = createHash("sha256").update(readFileSync(fragment)).digest("hex");
    const truthFile = join(dir, "frag3.truth.json");
    writeFileSync(truthFile, JSON.stringify(truthJson({ sessionFile: "frag3.jsonl", sha256: fragSha })));
    const refused = await cli(["eval", fragment, "--truth", truthFile, "--json"]);
    expect(refused.exit).toBe(2);
    const r = await cli(["eval", fragment, "--fragment", "--truth", truthFile, "--rounds", "2", "--json"]);
    const doc = JSON.parse(r.stdout) as EvalDocument;
    expect(doc.skipped).toEqual([]);
    expect(doc.sessions.map((s) => s.file)).toEqual([fragment]);
    expect(doc.sessions[0]?.sessionId).toBe(`fragment-${fragSha.slice(0, 12)}`);
    expect(doc.sessions[0]?.truth?.truthFile).toBe(truthFile);
    expect(doc.sessions[0]?.repeated?.rounds.length).toBe(2);
    expect(r.stderr).toMatch(/no session header/);
  });

  it("a truth file for a skipped session is matched by its hash (no exit 2); a folder's unused truths are listed", async () => {
    const fragment = join(dir, "frag2.jsonl");
    writeFileSync(fragment, readFileSync(session, "utf8").split("\n").slice(1).join("\n"));
    const fragSha = createHash("sha256").update(readFileSync(fragment)).digest("hex");
    const folder = join(dir, "truths");
    const { mkdirSync } = await import("node:fs");
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "frag2.truth.json"), JSON.stringify(truthJson({ sessionFile: "frag2.jsonl", sha256: fragSha })));
    writeFileSync(join(folder, "s.truth.json"), JSON.stringify(truthJson({ sessionFile: "s.jsonl", sha256: sha })));
    writeFileSync(join(folder, "gone.truth.json"), JSON.stringify(truthJson({ sessionFile: "gone.jsonl", sha256: "d".repeat(64) })));
    writeFileSync(join(folder, "README.md"), "not a truth file");
    const r = await cli(["eval", fragment, session, "--truth", folder, "--json"]);
    const doc = JSON.parse(r.stdout) as EvalDocument;
    expect(doc.skipped.map((s) => s.file)).toEqual([fragment]);
    expect(doc.sessions[0]?.truth?.truthFile).toBe(join(folder, "s.truth.json"));
    expect(doc.truthUnused).toEqual([join(folder, "gone.truth.json")]);
    expect(r.exit).toBe(1);
  });
});
