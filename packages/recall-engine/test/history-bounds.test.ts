// The score bounds a history's dictionary keeps per term and session (history-dictionary.ts codes, from
// rank.ts termScoreBound) against the scores ranking gives: over generated sessions and queries reaching
// every kind of match (whole word, prefix, stem, pieces, stopwords, compounds' parts, the verbatim boost),
// no block scores above the bound its session is given without being opened; a session grown since its
// bounds were computed is given none (its segment bounds it), before and after the log is merged.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { tempDir } from "@context-fold/test-support";
import { HistoryIndex, historyDirFor, parseQuery, RecallIndex, TermIndex, wordsScoreBound } from "@context-fold/recall-engine";
import { historyCandidates } from "../src/history-candidates.js";
import { BOUND_UNKNOWN, boundOfCode, boundsCode, DictionaryPages, idfOfCode } from "../src/history-dictionary.js";
import { segmentBase } from "../src/history-layout.js";
import { mergeDictionary } from "../src/history-merge.js";
import { BlockTable } from "../src/history-table.js";
import { quotedSources } from "../src/quoted-sources.js";
import { NO_TERMS, type TermsBound, wordsBoundPlan } from "../src/rank.js";
import { stemOf } from "../src/stem.js";
import { assistant, toolResult, user, writtenByPi } from "./support/pi-session.js";

const QUERIES = ["which version of node", "what hash did the commit get", "session", "sess", "checksum", "checksum drift", "src/ledger/reader.ts", "src/ledg", "read", "reading the ledger files", "the", "Command exited with code 1", "timeout deadline vitest", "pnpm run typecheck", "ledger", "normalization of the ledger window"];

const COMPOUND = /[/._:-]/;

/**
 * A history of the one session `file`, built in a fresh state folder: its folder, its session's ordinal,
 * and the bound its dictionary gives that session for a query (undefined: none, the segment bounds it).
 */
async function oneSessionHistory(file: string, prefix: string): Promise<{ history: HistoryIndex; state: string; ordinal: number; boundOf: (query: string) => number | undefined }> {
  const root = tempDir(prefix);
  const dir = dirname(file);
  const history = HistoryIndex.for(dir, { root });
  await history.update();
  const state = historyDirFor(dir, root);
  const ordinal = history.sessions[0]?.ordinal ?? -1;
  const blocks = history.sessions[0]?.blocks;
  return { history, state, ordinal, boundOf: (query) => historyCandidates(join(state, "dictionary.bin"), join(state, "dictionary.log"), query, false, (o) => (o === ordinal ? blocks : undefined)).bounds.get(ordinal) };
}

describe("history score bounds", () => {
  it("rounds a bound and an idf up to their scale, within 3%, and keeps no code for what is not finite", () => {
    for (let v = 0.001; v < 30; v *= 1.0173) {
      const code = boundsCode(v, v / 2);
      expect(code).not.toBe(BOUND_UNKNOWN);
      expect(boundOfCode(code)).toBeGreaterThanOrEqual(v);
      expect(idfOfCode(code)).toBeGreaterThanOrEqual(v / 2);
      if (v > 0.04) {
        expect(boundOfCode(code)).toBeLessThanOrEqual(v * 1.0301);
        expect(idfOfCode(code)).toBeLessThanOrEqual((v / 2) * 1.0301);
      }
    }
    for (const bad of [Number.POSITIVE_INFINITY, Number.NaN, 1e9]) {
      expect(boundsCode(bad, 1)).toBe(BOUND_UNKNOWN);
      expect(boundsCode(1, bad)).toBe(BOUND_UNKNOWN);
    }
    expect(boundOfCode(BOUND_UNKNOWN)).toBe(Number.POSITIVE_INFINITY);
    expect(idfOfCode(BOUND_UNKNOWN)).toBe(Number.POSITIVE_INFINITY);
  });

  it("bounds every score ranking gives a session from the dictionary alone, and none of a session grown since", async () => {
    const dir = tempDir("history-bounds-sessions-");
    const root = tempDir("history-bounds-root-");
    const files: string[] = [];
    for (const seed of [3, 11, 42]) {
      const file = join(dir, `s${String(seed)}.jsonl`);
      await generateSession(file, { seed, turns: 30, cwd: "/home/dev/bound" });
      files.push(file);
    }
    const history = HistoryIndex.for(dir, { root });
    await history.update();
    const state = historyDirFor(dir, root);
    const base = join(state, "dictionary.bin");
    const log = join(state, "dictionary.log");
    const ordinalOf = (file: string): number => history.sessions.find((s) => join(dir, s.path) === file)?.ordinal ?? -1;
    // Each session's block count, as the manifest keeps it (what bounds a compound matched inside a longer token).
    const blocksOf = (ordinal: number): number | undefined => history.sessions.find((s) => s.ordinal === ordinal)?.blocks;
    let checked = 0;
    let tight = 0;
    let compoundLeft = 0;
    let compoundBounded = 0;
    for (const query of QUERIES) {
      const { bounds } = historyCandidates(base, log, query, false, blocksOf);
      const { bounds: without } = historyCandidates(base, log, query, false);
      for (const file of files) {
        const bound = bounds.get(ordinalOf(file));
        const index = RecallIndex.fromTerms(await readSession(file), new TermIndex());
        for (const scope of ["all", "lineage"]) {
          const { ranked } = index.rank(query, { scope });
          if (ranked.length === 0) continue;
          // A compound (`src/ledger/reader.ts`) whose every piece the session holds may be matched inside a
          // longer token, at the idf of one block: without the session's block count it is left unbounded.
          if (without.get(ordinalOf(file)) === undefined && COMPOUND.test(query)) {
            compoundLeft++;
            if (bound !== undefined) compoundBounded++;
          }
          // Every session that holds a hit was written whole into the base: its bound is known.
          expect(bound, `${query} ${file}`).toBeDefined();
          for (const hit of ranked) expect(hit.score, `${query} (${scope}) ${file} #${String(hit.doc)}`).toBeLessThanOrEqual(bound as number);
          checked += ranked.length;
          if ((ranked[0]?.score ?? 0) > (bound as number) * 0.8) tight++;
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(compoundLeft).toBeGreaterThan(0);
    expect(compoundBounded).toBe(compoundLeft);
    // Bounds that never come near the scores would open every session: most best hits are within 20%.
    expect(tight).toBeGreaterThan(10);

    // A session grows (Pi appends): the bounds of its terms no longer hold, and the dictionary gives it none.
    const grown = files[1] as string;
    const sm = SessionManager.open(grown, dir);
    sm.appendMessage({ role: "user", content: "checksum checksum checksum drift ledger", timestamp: Date.parse("2026-06-01T10:00:00.000Z") } as unknown as AgentMessage);
    sm.appendMessage({ role: "assistant", content: [{ type: "text", text: "the checksum drift is in the ledger reader" }], api: "faux", provider: "faux", model: "faux", usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } }, stopReason: "stop", timestamp: Date.parse("2026-06-01T10:00:01.000Z") } as unknown as AgentMessage);
    const after = await history.update();
    expect(after.grown).toBe(1);
    expect(historyCandidates(base, log, "checksum", false).bounds.has(ordinalOf(grown))).toBe(false);
    expect(historyCandidates(base, log, "checksum", false).bounds.has(ordinalOf(files[0] as string))).toBe(true);
    // Still none once the log is folded into the base; the others keep theirs.
    expect(mergeDictionary({ basePath: base, logPath: log, manifestPath: join(state, "manifest.json") }, history.sessions, true)).toBe(true);
    const merged = historyCandidates(base, log, "checksum", false);
    expect(merged.want === "all" ? [] : [...merged.want]).toContain(ordinalOf(grown));
    expect(merged.bounds.has(ordinalOf(grown))).toBe(false);
    expect(merged.bounds.has(ordinalOf(files[0] as string))).toBe(true);
    // And its hits still rank as searching it alone does (its segment bounds it).
    const alone = RecallIndex.fromTerms(await readSession(grown), new TermIndex()).rank("checksum drift", { scope: "lineage" }).ranked[0];
    const across = await history.search("checksum drift", { pageSize: 50 });
    const top = across.hits.find((h) => h.session === "s11.jsonl");
    expect(top?.index).toBe(alone?.doc);
  }, 240_000);

  it("bounds a query a session can match only some words of by the coverage those words can reach", async () => {
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("the zebrafish fixture times out on CI"));
      sm.appendMessage(assistant([{ type: "text", text: "The zebrafish fixture waits on a lock; the zebrafish suite passes alone." }]));
      sm.appendMessage(user("and the parser?"));
    });
    const { boundOf } = await oneSessionHistory(file, "history-bounds-coverage-root-");
    const index = RecallIndex.fromTerms(await readSession(file), new TermIndex());
    const terms = new TermIndex();
    RecallIndex.fromTerms(await readSession(file), terms);
    // `quokkasaurus` is no term of the session, nor begins one: no block can cover it.
    const one = boundOf("zebrafish");
    const two = boundOf("zebrafish quokkasaurus");
    expect(one).toBeDefined();
    expect(two).toBeDefined();
    expect(two as number).toBeLessThanOrEqual((one as number) * Math.SQRT1_2 * 1.0001);
    let best = 0;
    for (const scope of ["all", "lineage"]) for (const hit of index.rank("zebrafish quokkasaurus", { scope }).ranked) best = Math.max(best, hit.score);
    expect(best).toBeGreaterThan(0);
    expect(two as number).toBeGreaterThanOrEqual(best);
    // The segment's own bound (a session grown since its dictionary bounds) likewise.
    const parsed = parseQuery("zebrafish quokkasaurus");
    if (parsed.mode !== "words") throw new Error("a word query");
    const fromSegment = wordsScoreBound(terms, parsed, (word) => word === "user");
    expect(fromSegment).toBeGreaterThanOrEqual(best);
    const alone = parseQuery("zebrafish");
    if (alone.mode !== "words") throw new Error("a word query");
    expect(fromSegment).toBeLessThanOrEqual(wordsScoreBound(terms, alone, (word) => word === "user") * Math.SQRT1_2 * 1.0001);
  }, 120_000);

  it("bounds a long word matched only by its truncation stem (comparison → compare) in the dictionary and in the segment", async () => {
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("compare the zebrafish fixture with the old one"));
      sm.appendMessage(assistant([{ type: "text", text: "The zebrafish fixture waits on a lock; the zebrafish suite passes alone." }]));
      sm.appendMessage(user("and the parser?"));
    });
    const { boundOf } = await oneSessionHistory(file, "history-bounds-truncation-root-");
    const terms = new TermIndex();
    const index = RecallIndex.fromTerms(await readSession(file), terms);
    const query = "zebrafish comparison";
    let best = 0;
    for (const scope of ["all", "lineage"]) for (const hit of index.rank(query, { scope }).ranked) best = Math.max(best, hit.score);
    // The user's message covers both words (`comparison` by `compar`): above what `zebrafish` alone reaches.
    expect(best).toBeGreaterThan(index.rank("zebrafish", { scope: "all" }).ranked[0]?.score ?? 0);
    expect(boundOf(query) as number).toBeGreaterThanOrEqual(best);
    const parsed = parseQuery(query);
    if (parsed.mode !== "words") throw new Error("a word query");
    expect(wordsScoreBound(terms, parsed, (word) => word === "user")).toBeGreaterThanOrEqual(best);
  }, 120_000);

  it("bounds a word that begins dozens of rare terms by its prefix match as ranking scores it, not by the rarest term's idf", async () => {
    // Thirty terms beginning with `session`, each written once: per term each is rare (a high idf), their
    // union is common. Ranking scores the union with one idf; so must the bound.
    const names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega", "red", "green", "blue", "cyan", "magenta", "yellow"];
    const file = writtenByPi((sm) => {
      // The word itself once, in a long message (its own match weak: the union's bound decides).
      sm.appendMessage(user(`session notes: ${Array.from({ length: 400 }, (_, k) => `word${String(k % 50)}`).join(" ")}`));
      for (const [k, name] of names.entries()) {
        sm.appendMessage(user(`look at session${name} in the store, item ${String(k)}`));
        sm.appendMessage(assistant([{ type: "text", text: `Nothing else changed in item ${String(k)}; the build passed.` }]));
        sm.appendMessage(user(`then run the ${name} checks on the parser and the writer`));
        sm.appendMessage(assistant([{ type: "text", text: `The ${name} checks pass on both.` }]));
      }
    });
    const { boundOf } = await oneSessionHistory(file, "history-bounds-union-root-");
    const index = RecallIndex.fromTerms(await readSession(file), new TermIndex());
    for (const query of ["session"]) {
      const bound = boundOf(query);
      expect(bound, query).toBeDefined();
      let best = 0;
      for (const scope of ["all", "lineage"]) {
        for (const hit of index.rank(query, { scope }).ranked) {
          expect(hit.score, `${query} (${scope}) #${String(hit.doc)}`).toBeLessThanOrEqual(bound as number);
          best = Math.max(best, hit.score);
        }
      }
      // Within the scale's rounding and the weights a block may reach (without the union's own bound: 1.7×).
      expect(bound as number, query).toBeLessThan(best * 1.25);
    }
  }, 120_000);

  it("bounds a word no term of the session is, matched by its stem's terms (rotation → rotat…), by that union as ranking scores it", async () => {
    // `rotation` is never written; thirty terms its stem begins are, each once (each rare: a high idf),
    // and `rotated` (the stem's own word). Ranking scores them as one union of one idf; so must the bound.
    const names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda", "mu", "nu", "xi", "omicron", "pi", "rho", "sigma", "tau", "upsilon", "phi", "chi", "psi", "omega", "red", "green", "blue", "cyan", "magenta", "yellow"];
    const file = writtenByPi((sm) => {
      sm.appendMessage(user(`the keys were rotated: ${Array.from({ length: 400 }, (_, k) => `word${String(k % 50)}`).join(" ")}`));
      for (const [k, name] of names.entries()) {
        sm.appendMessage(user(`look at rotate${name} in the store, item ${String(k)}`));
        sm.appendMessage(assistant([{ type: "text", text: `Nothing else changed in item ${String(k)}; the build passed.` }]));
      }
    });
    expect(stemOf("rotated")).toBe(stemOf("rotation"));
    const { boundOf } = await oneSessionHistory(file, "history-bounds-stem-union-root-");
    const terms = new TermIndex();
    const index = RecallIndex.fromTerms(await readSession(file), terms);
    expect(terms.termId("rotation")).toBe(-1);
    const bound = boundOf("rotation");
    expect(bound).toBeDefined();
    let best = 0;
    for (const scope of ["all", "lineage"]) {
      for (const hit of index.rank("rotation", { scope }).ranked) {
        expect(hit.score, `(${scope}) #${String(hit.doc)}`).toBeLessThanOrEqual(bound as number);
        best = Math.max(best, hit.score);
      }
    }
    expect(best).toBeGreaterThan(0);
    // Within the scale's rounding and the weights a block may reach (the rarest term's idf alone: 1.6×).
    expect(bound as number).toBeLessThan(best * 1.25);
  }, 120_000);

  it("bounds the scores of the question rules: a value of the asked form doubled, the user's message lending the reply's score", async () => {
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("set the dark theme: accent #8abeb7, green diff #b5bd68, red diff #cc6666"));
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_v", name: "bash", arguments: { command: "node --version && pnpm --version" } }]));
      sm.appendMessage(toolResult("c_v", "bash", "v22.19.0\n10.34.8"));
      sm.appendMessage(assistant([{ type: "text", text: "Updated the dark theme colors: accent #8abeb7, green diffs #b5bd68, red diffs #cc6666, on node v22.19.0 with pnpm 10.34.8." }]));
      sm.appendMessage(user("accent #d7afff, comments #5f875f, strings #87af87"));
      sm.appendMessage(assistant([{ type: "text", text: "Updated the light palette: accent #d7afff, comments #5f875f, strings #87af87." }]));
      sm.appendMessage(user("which version of pnpm do we pin?"));
      sm.appendMessage(assistant([{ type: "text", text: "We pin pnpm 10.34.8 in the version field of package.json." }]));
    });
    const { boundOf } = await oneSessionHistory(file, "history-bounds-rules-root-");
    const index = RecallIndex.fromTerms(await readSession(file), new TermIndex());
    let checked = 0;
    for (const query of ["Which colors did the dark theme get for accent and diffs?", "which version of pnpm do we pin", "what theme accent color", "node version", "updated light palette"]) {
      const bound = boundOf(query);
      expect(bound, query).toBeDefined();
      for (const scope of ["all", "lineage"]) {
        for (const hit of index.rank(query, { scope }).ranked) {
          expect(hit.score, `${query} (${scope}) #${String(hit.doc)}`).toBeLessThanOrEqual(bound as number);
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(8);
  }, 120_000);

  it("bounds a compound matched inside longer tokens by the idf of the blocks holding it whole, where the session holds it whole", () => {
    // What the dictionary says of one session: the token held whole by a few blocks (idf 2), every piece
    // and part held (bound 1, idf 5), no longer term begun; a session of 1,000 blocks.
    const parsed = parseQuery("src/ledger/reader.ts");
    if (parsed.mode !== "words") throw new Error("a word query");
    const plan = wordsBoundPlan(parsed, () => false);
    const held = (idf: number): TermsBound => ({ bound: 1, idf, count: 1 });
    const whole = plan({ exact: (term) => held(term === "src/ledger/reader.ts" ? 2 : 5), prefixed: () => NO_TERMS, docCount: 1000 });
    const never = plan({ exact: (term) => (term === "src/ledger/reader.ts" ? NO_TERMS : held(5)), prefixed: () => NO_TERMS, docCount: 1000 });
    // Held inside a longer token: a prefix match (0.7) by at most that idf, a tf-and-length factor below
    // K1 + 1 (2.2), the user's weight (1.2); plus the five parts' boosts (0.3 × their bound, 1).
    expect(whole).toBeCloseTo(0.7 * 2 * 2.2 * 1.2 + 0.3 * 5, 6);
    // Not held whole: as few as one block of the thousand may hold it literally.
    expect(never).toBeCloseTo(0.7 * Math.log(1 + 999.5 / 1.5) * 2.2 * 1.2 + 0.3 * 5, 6);
  });

  it("counts the blocks holding a compound whole among those holding it literally, off the lineage too, as its bound reads them", async () => {
    // The token is written whole only on an abandoned branch (twelve times); on the lineage, once, inside a
    // longer path. Ranking the lineage counts the twelve with the one: the dictionary's bound (the idf
    // of the twelve) holds.
    const file = writtenByPi((sm) => {
      for (let k = 0; k < 60; k++) {
        sm.appendMessage(user(`step ${String(k)}: tidy the parser module and rerun the checks`));
        sm.appendMessage(assistant([{ type: "text", text: `Done with step ${String(k)}; the writer and the parser both pass.` }]));
      }
      const fork = sm.getLeafId();
      for (let k = 0; k < 12; k++) {
        sm.appendMessage(user(`look at src/ledger/reader.ts again, attempt ${String(k)}`));
        sm.appendMessage(assistant([{ type: "text", text: `Attempt ${String(k)} failed.` }]));
      }
      if (fork !== null) sm.branch(fork);
      sm.appendMessage(user("the bug is in packages/core/src/ledger/reader.ts"));
      sm.appendMessage(assistant([{ type: "text", text: "Fixed it there." }]));
    });
    const { boundOf } = await oneSessionHistory(file, "history-bounds-literal-root-");
    const terms = new TermIndex();
    const index = RecallIndex.fromTerms(await readSession(file), terms);
    const query = "src/ledger/reader.ts";
    const bound = boundOf(query);
    expect(bound).toBeDefined();
    const parsed = parseQuery(query);
    if (parsed.mode !== "words") throw new Error("a word query");
    const fromSegment = wordsScoreBound(terms, parsed, (word) => word === "user");
    const lineage = index.rank(query, { scope: "lineage" }).ranked;
    // The message naming the longer path is the lineage's hit.
    expect(lineage.length).toBeGreaterThan(0);
    for (const scope of ["all", "lineage"]) {
      for (const hit of index.rank(query, { scope }).ranked) {
        expect(hit.score, `(${scope}) #${String(hit.doc)}`).toBeLessThanOrEqual(bound as number);
        expect(hit.score, `(${scope}) #${String(hit.doc)}, segment`).toBeLessThanOrEqual(fromSegment);
      }
    }
  }, 120_000);

  it("answers from the base pages an earlier search kept while the base is the same file, and from the new base once it is replaced", async () => {
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("the zebrafish fixture times out on CI"));
      sm.appendMessage(assistant([{ type: "text", text: "The zebrafish fixture waits on a lock." }]));
    });
    const dir = dirname(file);
    const { history, state } = await oneSessionHistory(file, "history-bounds-pages-root-");
    const base = join(state, "dictionary.bin");
    const log = join(state, "dictionary.log");
    const kept = new DictionaryPages();
    const blocksOf = (o: number): number | undefined => history.sessions.find((s) => s.ordinal === o)?.blocks;
    const ask = (query: string, pages?: DictionaryPages): { want: number[] | "all"; bounds: [number, number][] } => {
      const c = historyCandidates(base, log, query, false, blocksOf, pages);
      return { want: c.want === "all" ? "all" : [...c.want].sort((a, b) => a - b), bounds: [...c.bounds] };
    };
    expect(ask("zebrafish", kept)).toEqual(ask("zebrafish"));
    const read = kept.pages.size;
    expect(read).toBeGreaterThan(0);
    // The same lookups again: every page they visit is kept (none read again, none added).
    expect(ask("zebrafish", kept)).toEqual(ask("zebrafish"));
    expect(kept.pages.size).toBe(read);
    // A second session, its terms folded into a new base (replaced whole): the kept pages are not its.
    const other = join(dir, "second.jsonl");
    const sm = SessionManager.open(other, dir);
    sm.appendMessage(user("the quokka parser drops a field") as unknown as AgentMessage);
    await history.update();
    expect(mergeDictionary({ basePath: base, logPath: log, manifestPath: join(state, "manifest.json") }, history.sessions, true)).toBe(true);
    const now = ask("quokka");
    expect(now.want).not.toEqual([]);
    expect(ask("quokka", kept)).toEqual(now);
    expect(ask("zebrafish", kept)).toEqual(ask("zebrafish"));
  }, 120_000);

  it("bounds a file token matched by its name without the extension, and a noun matched by its verb", async () => {
    // No block holds the extension's piece (`ts`): the token's own pieces are not all held, its name's are.
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("interactive-mode repeats itself, shorten it"));
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_d", name: "bash", arguments: { command: 'git commit -am "Deduplicate interactive-mode: add a showStatus helper"' } }]));
      sm.appendMessage(toolResult("c_d", "bash", "[refactor 109a30b] Deduplicate interactive-mode: add a showStatus helper"));
      sm.appendMessage(user("now the footer"));
      sm.appendMessage(assistant([{ type: "text", text: "The footer helper is next; the mode line stays interactive." }]));
    });
    const { boundOf } = await oneSessionHistory(file, "history-bounds-names-root-");
    const index = RecallIndex.fromTerms(await readSession(file), new TermIndex());
    let checked = 0;
    for (const query of ["Which commit shortened interactive-mode.ts?", "interactive-mode.ts", "which helper did the deduplication add", "deduplication"]) {
      const bound = boundOf(query);
      const ranked = index.rank(query, { scope: "all" }).ranked;
      expect(ranked.length, query).toBeGreaterThan(0);
      // None (the segment bounds the session) or one above every score.
      for (const hit of ranked) expect(bound === undefined || hit.score <= bound, `${query} #${String(hit.doc)}: ${String(hit.score)} > ${String(bound)}`).toBe(true);
      checked += ranked.length;
    }
    expect(checked).toBeGreaterThan(6);
  }, 120_000);
  it("keeps in each block table the block each prose block quotes, as found over the session's own index, and bounds prose that quotes nothing by its own kind", async () => {
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("which node and pnpm do we run?"));
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_v", name: "bash", arguments: { command: "node --version && pnpm --version" } }]));
      sm.appendMessage(toolResult("c_v", "bash", "v22.19.0\n10.34.8"));
      sm.appendMessage(assistant([{ type: "text", text: "We run node v22.19.0 with pnpm 10.34.8." }]));
      sm.appendMessage(assistant([{ type: "text", text: "The zebrafish fixture is unrelated to this." }]));
    });
    const dir = dirname(file);
    const { history, state, boundOf } = await oneSessionHistory(file, "history-quotes-root-");
    const s = history.sessions[0];
    if (s === undefined) throw new Error("no session");
    const tab = `${segmentBase(join(state, "segments"), file, s.id)}.tab`;
    const session = await readSession(file);
    const terms = new TermIndex();
    RecallIndex.fromTerms(session, terms);
    const table = BlockTable.read(file, readFileSync(tab), tab, true);
    let quoting = 0;
    for (const b of session.blocks) {
      const kept = table.quotedBy(b.index);
      if (b.kind !== "text" && b.kind !== "thinking") continue;
      const found = quotedSources(session.blocks, b.index, terms, () => false);
      expect(kept, `#${String(b.index)}`).toEqual(found);
      if (found.length > 0) quoting++;
    }
    expect(quoting).toBe(1);
    // The prose quoting nothing lends no output its score: bounded by its own kind's weight (text, 0.8),
    // within the scale's rounding, not by an output's (1), as when any prose after an output could quote it.
    const bound = boundOf("zebrafish");
    const best = RecallIndex.fromTerms(session, new TermIndex()).rank("zebrafish", { scope: "all" }).ranked[0]?.score ?? 0;
    expect(best).toBeGreaterThan(0);
    expect(bound).toBeGreaterThanOrEqual(best);
    expect((bound as number) / best).toBeLessThan(1.07);
    // Grown, its segment is in parts: what is rare moves with each growth, so its table keeps none (a search finds them).
    const grown = SessionManager.open(file, dir);
    grown.appendMessage(user("and the version of vitest?"));
    await history.update();
    const after = BlockTable.read(file, readFileSync(tab), tab, true);
    expect(after.count).toBe(session.blocks.length + 1);
    expect(after.quotedBy(3)).toBeNull();
  }, 120_000);
});
