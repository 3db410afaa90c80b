// `context-fold recall`: search a session (or every session under a sessions dir) through the cached
// recall index; expand `#N` blocks verified against the ledger; pull seed-index spans by code/anchor/term.
import { basename, join, resolve } from "node:path";
import type { Command } from "commander";
import type { OpenRecallOptions, RecallAnswer, RecallRequest } from "@context-fold/recall-engine";
// A plain search is answered from the block table through the light entry; the package itself (and the
// ledger reader it brings) is imported only when the answer needs more (see @context-fold/recall-engine/one-shot).
import { recallFromTable, renderResults, type SearchResult } from "@context-fold/recall-engine/one-shot";
import { RECALL_ARGUMENTS, RECALL_DESCRIPTION, RECALL_OPTIONS, type RecallOptions } from "./recall-options.js";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, setExit, warn } from "../output.js";
import { withProgress } from "../progress.js";

type Engine = typeof import("@context-fold/recall-engine");

function positiveInt(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new CliError(`${option} must be a positive integer, got "${text}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  return Number(text);
}

function parseIndices(text: string): number[] {
  const out: number[] = [];
  for (const part of text.split(",")) {
    const item = part.trim().replace(/^#/, "");
    if (!/^\d{1,9}$/.test(item)) throw new CliError(`--expand takes #N numbers separated by commas (e.g. 12,13), got "${part}"`, { code: "USAGE", exitCode: EXIT_USAGE });
    out.push(Number(item));
  }
  return out;
}

function parseLines(text: string): { from: number; to: number } {
  const m = /^(\d{1,9})(?:-(\d{1,9}))?$/.exec(text.trim());
  if (m === null) throw new CliError(`--lines takes a 1-based range like 10-40, got "${text}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  const from = Number(m[1]);
  const to = m[2] === undefined ? from : Number(m[2]);
  if (from < 1 || to < from) throw new CliError(`--lines range ${text} is empty or starts before line 1`, { code: "USAGE", exitCode: EXIT_USAGE });
  return { from, to };
}

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
  search: { scope?: string; page?: number; pageSize?: number; regex?: boolean },
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

/** A --page past the last one is a usage error, not a quiet first page. */
function refusePastLastPage(page: number | undefined, result: SearchResult): void {
  if (page !== undefined && result.total > 0 && page > result.pages) {
    throw new CliError(`--page ${String(page)}: "${result.query ?? ""}" has ${String(result.pages)} page(s) of hits`, { code: "USAGE", exitCode: EXIT_USAGE });
  }
}

/** `request` answered by reading the ledger (and saving a fresh block table), the table not tried again. */
async function readInFull(file: string, request: RecallRequest, open: OpenRecallOptions): Promise<RecallAnswer> {
  const { recallFile } = await import("@context-fold/recall-engine");
  return withProgress(`indexing ${basename(file)}`, "bytes", (bar) => recallFile(file, { ...request, tables: false, open: { ...open, onBytes: (read, total) => bar.update(read, total) } }));
}

/** `recall` as its action runs it (commander, or the binary's fast path: recall-argv.ts). */
export async function recall(sessionArg: string | undefined, words: string[], options: RecallOptions): Promise<void> {
  const json = options.json === true;
  const page = positiveInt("--page", options.page);
  const pageSize = positiveInt("--page-size", options.pageSize);
  const open: OpenRecallOptions = {
    ...(options.cacheDir === undefined ? {} : { cacheDir: resolve(options.cacheDir) }),
    ...(options.cache === false ? { cache: false } : {}),
    ...(options.fragment === true ? { fragment: true } : {}),
  };
  const search = { ...(options.scope === undefined ? {} : { scope: options.scope }), ...(page === undefined ? {} : { page }), ...(pageSize === undefined ? {} : { pageSize }), ...(options.regex === true ? { regex: true } : {}) };

  if (options.sessions !== undefined) {
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

  if (sessionArg === undefined) throw new CliError("give a session file, or --sessions <dir>", { code: "USAGE", exitCode: EXIT_USAGE });
  const file = resolve(sessionArg);
  const query = words.join(" ");
  if (query.trim().length > 0) {
    const takesNoQuery = options.expand !== undefined ? "--expand" : options.code !== undefined ? "--code" : options.anchor !== undefined ? "--anchor" : options.term !== undefined ? "--term" : undefined;
    if (takesNoQuery !== undefined) throw new CliError(`${takesNoQuery} takes no query words (got "${query}"); search first, then ${takesNoQuery}`, { code: "USAGE", exitCode: EXIT_USAGE });
  }
  const spanWanted = options.code !== undefined || options.anchor !== undefined || options.term !== undefined;
  if (!spanWanted && (options.grep !== undefined || options.lines !== undefined || options.fullOutput === true)) {
    throw new CliError("--grep, --lines and --full-output scan a span: give --code, --anchor or --term", { code: "USAGE", exitCode: EXIT_USAGE });
  }
  const scan = {
    ...(options.grep === undefined ? {} : { grep: options.grep }),
    ...(options.lines === undefined ? {} : { lines: parseLines(options.lines) }),
    ...(options.fullOutput === true ? { fullOutput: true } : {}),
  };
  const request: RecallRequest = {
    ...search,
    query,
    ...(spanWanted
      ? {
          spans: {
            ...(options.code === undefined ? {} : { code: options.code }),
            ...(options.anchor === undefined ? {} : { anchor: options.anchor }),
            ...(options.term === undefined ? {} : { term: options.term }),
            ...(Object.keys(scan).length > 0 ? { scan } : {}),
            ...(options.roots === undefined ? {} : { roots: options.roots.split(",").map((r) => resolve(r.trim())) }),
          },
        }
      : {}),
    ...(options.expand === undefined ? {} : { expand: parseIndices(options.expand) }),
  };
  // A plain word search or browse is answered from the cache and its block table when both match the
  // ledger's bytes, without parsing it; otherwise the ledger is read (with a progress bar), the table not tried again.
  const answer = recallFromTable(file, { ...request, open }) ?? (await readInFull(file, request, open));
  const notes = answer.notes;
  if (answer.kind !== "ranked" && answer.recall !== null) {
    const { warnDamage, warnFragment } = await import("../session-input.js");
    warnFragment(answer.recall.session);
    warnDamage(answer.recall.session);
  }
  if (notes.cache?.reason !== undefined && notes.cache.status === "memory") warn(`context-fold: ${notes.cache.reason}; searching without a cache`);
  if (notes.cache?.status === "rebuilt") warn(`context-fold: recall index rebuilt (${notes.cache.reason ?? "stale"})`);
  // Only the next search's speed depends on the block table.
  if (notes.snapshotProblem !== undefined) warn(`context-fold: recall snapshot not written (${notes.snapshotProblem})`);
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
  refusePastLastPage(page, result);
  for (const c of notes.changed) warn(`context-fold: #${String(c.index)}: ${c.problem}`);
  if (notes.changed.length > 0) setExit(EXIT_FINDINGS);
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
