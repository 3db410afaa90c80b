// `context-fold recall`: search a session (or every session under a sessions dir) through the cached
// recall index; expand `#N` blocks verified against the ledger; pull seed-index spans by code/anchor/term.
//
// The first search of a session builds its index from the session read whole (3,807 MB peak, 62 s CPU on
// the 1 GB bench session). Not streamed, and why: what the build makes is itself over the 512 MB a
// command may take (on that session the term index is 352 MB and the block table 254 MB as written), it
// is held whole while built, and a later search reads both files whole; a build fed block by block would
// drop the session's text but not those. Bounded memory needs an index built and searched in segments
// (as the history index of `--sessions` is), which is a format change (README, "Large sessions").
import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import type { OpenRecallOptions, RecallAnswer, RecallRequest } from "@context-fold/recall-engine";
// A plain search is answered from the block table through the light entry; the package itself (and the
// ledger reader it brings) is imported only when the answer needs more (see @context-fold/recall-engine/one-shot).
import { recallFromTable, renderResults } from "@context-fold/recall-engine/one-shot";
import { RECALL_ARGUMENTS, RECALL_DESCRIPTION, RECALL_OPTIONS, type RecallOptions } from "./recall-options.js";
import { checkSearch, fileRecall, openOptions, parseIndices, refusePastLastPage, type SearchOptions, searchOptions, warnNotes } from "./recall-search.js";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, setExit, warn } from "../output.js";
import { withProgress } from "../progress.js";

type Engine = typeof import("@context-fold/recall-engine");

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
  { HistoryIndex, renderExpanded, renderSessionNames }: Engine,
  dir: string,
  query: string,
  options: RecallOptions,
  search: SearchOptions,
  json: boolean,
): Promise<void> {
  const root = options.cacheDir === undefined ? undefined : join(resolve(options.cacheDir), "history");
  const history = HistoryIndex.for(dir, root === undefined ? {} : { root });
  if (options.expand !== undefined) {
    if (options.in === undefined) throw new CliError("--sessions --expand needs --in <session> (the session a hit names)", { code: "USAGE", exitCode: EXIT_USAGE });
    if (query.trim().length > 0) throw new CliError(`--expand takes no query words (got "${query}"); search first, then --expand`, { code: "USAGE", exitCode: EXIT_USAGE });
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
  const result = await withProgress("indexing sessions", "items", async (bar) => {
    const progress = HistoryIndex.for(dir, { ...(root === undefined ? {} : { root }), onProgress: (done, total) => bar.update(done, total) });
    return progress.search(query, { ...search, ...filters });
  });
  for (const s of result.skipped) warn(`context-fold: skipped ${s.file}: ${s.reason}`);
  if (result.sessions === 0 && result.skipped.length > 0) throw new CliError(`no readable session under ${dir}`, { code: "NOT_FOUND", exitCode: EXIT_USAGE });
  refusePastLastPage(search.page, result);
  emit(json, result, () => `${renderResults(result)}${renderSessionNames(result.named)}`);
}

/** `request` answered by reading the ledger (and saving a fresh block table), the table not tried again. */
async function readInFull(file: string, request: RecallRequest, open: OpenRecallOptions): Promise<RecallAnswer> {
  const { recallFile } = await import("@context-fold/recall-engine");
  return withProgress(`indexing ${basename(file)}`, "bytes", (bar) => recallFile(file, { ...request, tables: false, open: { ...open, onBytes: (read, total) => bar.update(read, total) } }));
}

/**
 * `recall` as its action runs it (commander, or the binary's parse: recall-argv.ts). `how.table: false`:
 * the block table was already tried for this request (the binary's one-shot search, recall-one-shot.ts),
 * so the ledger is read at once.
 */
export async function recall(sessionArg: string | undefined, words: string[], options: RecallOptions, how: { table?: boolean } = {}): Promise<void> {
  if (options.sessions !== undefined) {
    const json = options.json === true;
    const search = searchOptions(options);
    const open = openOptions(options);
    const [engine, { sessionsTarget }] = await Promise.all([import("@context-fold/recall-engine"), import("../sessions-target.js")]);
    const { dir, firstWord } = sessionsTarget(options.sessions);
    const query = [firstWord, sessionArg, ...words].filter((w): w is string => w !== undefined).join(" ");
    if (query.trim().length === 0 && options.expand === undefined) throw new CliError("--sessions needs a query", { code: "USAGE", exitCode: EXIT_USAGE });
    if (options.code !== undefined || options.anchor !== undefined || options.term !== undefined) {
      throw new CliError("--code, --anchor and --term work on one session file, not --sessions", { code: "USAGE", exitCode: EXIT_USAGE });
    }
    if (options.cache === false) {
      if (options.expand !== undefined) throw new CliError("--sessions --expand reads the history index: drop --no-cache", { code: "USAGE", exitCode: EXIT_USAGE });
      if (query.trim().length === 0) throw new CliError("--sessions needs a query", { code: "USAGE", exitCode: EXIT_USAGE });
      const result = await withProgress("searching sessions", "items", (bar) => engine.searchSessions(dir, query, { ...search, ...open, onProgress: (done, total) => bar.update(done, total) }));
      for (const s of result.skipped) warn(`context-fold: skipped ${s.file}: ${s.reason}`);
      if (result.sessions === 0) throw new CliError(`no readable session under ${dir}`, { code: "NOT_FOUND", exitCode: EXIT_USAGE });
      emit(json, result, () => renderResults(result));
      return;
    }
    await recallHistory(engine, dir, query, options, search, json);
    return;
  }

  const { file, request, open, json, page } = fileRecall(sessionArg, words, options);
  // A plain word search or browse is answered from the cache and its block table when both match the
  // ledger's bytes, without parsing it; otherwise the ledger is read (with a progress bar), the table not tried again.
  const answer = (how.table === false ? null : recallFromTable(file, { ...request, open })) ?? (await readInFull(file, request, open));
  const notes = answer.notes;
  if (answer.kind !== "ranked" && answer.recall !== null) {
    const { warnDamage, warnFragment } = await import("../session-input.js");
    warnFragment(answer.recall.session);
    warnDamage(answer.recall.session);
  }
  warnNotes(notes);
  if (answer.kind === "spans") {
    const { renderSpans } = await import("@context-fold/recall-engine");
    emit(json, answer.result, () => renderSpans(answer.result));
    if (answer.result.spans.some((s) => !s.verified)) setExit(EXIT_FINDINGS);
    return;
  }
  if (answer.kind === "expand") {
    const { renderExpanded } = await import("@context-fold/recall-engine");
    const entries = answer.entries;
    emit(json, { entries }, () => renderExpanded(entries));
    // A finding is text that differs from its recorded hash; nothing recorded is "none", said in the output.
    if (entries.some((e) => !e.verified && e.verifiedAgainst !== "none")) setExit(EXIT_FINDINGS);
    return;
  }
  if (answer.kind !== "search") throw new Error(`recall answered ${answer.kind} to a search`);
  const result = answer.result;
  checkSearch(result, notes, page);
  const salvaged = answer.salvaged;
  if (salvaged.length === 0) emit(json, result, () => renderResults(result));
  else {
    const { renderSalvaged } = await import("@context-fold/recall-engine");
    emit(json, { ...result, salvaged }, () => `${renderResults(result)}${renderSalvaged(salvaged)}`);
  }
}

/** Declares `recall` on `program` from its option table, with `action` to run it (tests pass their own). */
export function defineRecall(program: Command, action: (session: string | undefined, query: string[], options: RecallOptions) => Promise<void>): void {
  const command = program.command("recall").description(RECALL_DESCRIPTION);
  for (const argument of RECALL_ARGUMENTS) command.argument(argument.name, argument.description);
  for (const option of RECALL_OPTIONS) command.option(option.flags, option.description);
  command.action(action);
}

export function registerRecall(program: Command): void {
  defineRecall(program, recall);
}
