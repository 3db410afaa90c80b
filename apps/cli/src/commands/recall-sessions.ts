// `context-fold recall --sessions [dir]`: every session under a sessions folder searched through its
// history index (kept in the state folder, or under --cache-dir), or each session on its own with
// --no-cache; `--expand` of the session a hit names. A module of its own, with static imports only: the
// binary runs it from one bundle (recall-sessions-one-shot.ts), which then holds only the package code a
// history search reaches; the program reaches it through recall.ts.
import { join, resolve } from "node:path";
import { HistoryIndex, renderExpanded, renderSessionNames, searchSessions } from "@context-fold/recall-engine";
import { renderResults } from "@context-fold/recall-engine/one-shot";
import type { RecallOptions } from "./recall-options.js";
import { openOptions, parseIndices, refusePastLastPage, type SearchOptions, searchOptions } from "./recall-search.js";
import { keepCompilersLight, letCompilersWork } from "../compile-tiers.js";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, setExit, warn } from "../output.js";
import { withProgress } from "../progress.js";
import { sessionsTarget } from "../sessions-target.js";


function parseDate(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const t = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}/.test(text) || Number.isNaN(t)) throw new CliError(`${option} takes a date like 2026-03-01 (or an ISO time), got "${text}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  return t;
}

/**
 * `recall --sessions` through the history index of the sessions folder (kept in the state folder, or
 * under --cache-dir): search, or expand `#N` of the session named by --in, verified against its ledger.
 */
async function recallHistory(
  dir: string,
  query: string,
  options: RecallOptions,
  search: SearchOptions,
  json: boolean,
): Promise<void> {
  const root = options.cacheDir === undefined ? undefined : join(resolve(options.cacheDir), "history");
  if (options.expand !== undefined) {
    if (options.in === undefined) throw new CliError("--sessions --expand needs --in <session> (the session a hit names)", { code: "USAGE", exitCode: EXIT_USAGE });
    if (query.trim().length > 0) throw new CliError(`--expand takes no query words (got "${query}"); search first, then --expand`, { code: "USAGE", exitCode: EXIT_USAGE });
    const history = HistoryIndex.for(dir, root === undefined ? {} : { root });
    const { file, entries } = await history.expand(options.in, parseIndices(options.expand));
    emit(json, { session: file, entries }, () => renderExpanded(entries, { session: options.in ?? file }));
    if (entries.some((e) => !e.verified && e.verifiedAgainst !== "none")) setExit(EXIT_FINDINGS);
    return;
  }
  const since = parseDate("--since", options.since);
  const until = parseDate("--until", options.until);
  const filters = {
    // Inside a project folder, its own sessions' hits come first (none is left out); --project keeps only those.
    ...(options.project === undefined ? { first: process.cwd() } : { project: resolve(options.project) }),
    ...(since === undefined ? {} : { since }),
    ...(until === undefined ? {} : { until }),
  };
  // A search of a history already up to date is short: V8 keeps to baseline code unless the update indexes
  // (compile-tiers.ts). Set before any of the search's code runs: a function's tier-up budget is set by
  // the counts in force when it first runs, and the plain sha256 (sha256-text.ts) that names the
  // history's folder, first run under V8's defaults, was then compiled by TurboFan when the page's texts
  // were checked with it (some 20 ms of a compiler thread's CPU, for a process about to end).
  keepCompilersLight();
  const result = await withProgress("indexing sessions", "items", async (bar) => {
    const progress = HistoryIndex.for(dir, { ...(root === undefined ? {} : { root }), onProgress: (done, total) => bar.update(done, total), onUpdateWork: letCompilersWork });
    return progress.search(query, { ...search, ...filters });
  });
  for (const s of result.skipped) warn(`context-fold: skipped ${s.file}: ${s.reason}`);
  if (result.sessions === 0 && result.skipped.length > 0) throw new CliError(`no readable session under ${dir}`, { code: "NOT_FOUND", exitCode: EXIT_USAGE });
  refusePastLastPage(search.page, result);
  emit(json, result, () => `${renderResults(result)}${renderSessionNames(result.named)}`);
}

/** `recall --sessions …` as its action runs it (`sessionArg`: the first query word, as commander takes it). */
export async function recallSessions(sessionArg: string | undefined, words: string[], options: RecallOptions): Promise<void> {
  if (options.sessions === undefined) throw new Error("recallSessions needs --sessions");
  const json = options.json === true;
  const search = searchOptions(options);
  const open = openOptions(options);
  const { dir, firstWord } = sessionsTarget(options.sessions);
  const query = [firstWord, sessionArg, ...words].filter((w): w is string => w !== undefined).join(" ");
  if (query.trim().length === 0 && options.expand === undefined) throw new CliError("--sessions needs a query", { code: "USAGE", exitCode: EXIT_USAGE });
  if (options.code !== undefined || options.anchor !== undefined || options.term !== undefined) {
    throw new CliError("--code, --anchor and --term work on one session file, not --sessions", { code: "USAGE", exitCode: EXIT_USAGE });
  }
  if (options.cache === false) {
    if (options.expand !== undefined) throw new CliError("--sessions --expand reads the history index: drop --no-cache", { code: "USAGE", exitCode: EXIT_USAGE });
    if (query.trim().length === 0) throw new CliError("--sessions needs a query", { code: "USAGE", exitCode: EXIT_USAGE });
    const result = await withProgress("searching sessions", "items", (bar) => searchSessions(dir, query, { ...search, ...open, onProgress: (done, total) => bar.update(done, total) }));
    for (const s of result.skipped) warn(`context-fold: skipped ${s.file}: ${s.reason}`);
    if (result.sessions === 0) throw new CliError(`no readable session under ${dir}`, { code: "NOT_FOUND", exitCode: EXIT_USAGE });
    emit(json, result, () => renderResults(result));
    return;
  }
  await recallHistory(dir, query, options, search, json);
}
