// `recall` over one session file, the part both of its runners share: the request its arguments make
// (checked: a mistake is a usage error) and how a search answer is told. The runners: the command itself
// (recall.ts, through commander or the binary's parse) and the binary's one-shot search
// (recall-one-shot.ts), a bundle of its own that must not load the rest of the command.
import { resolve } from "node:path";
import type { OpenRecallOptions, RecallNotes, RecallRequest, SearchResult } from "@context-fold/recall-engine/one-shot";
import type { RecallOptions } from "./recall-options.js";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, setExit, warn } from "../output.js";

export interface SearchOptions {
  scope?: string;
  page?: number;
  pageSize?: number;
  regex?: boolean;
}

export function positiveInt(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) throw new CliError(`${option} must be a positive integer, got "${text}"`, { code: "USAGE", exitCode: EXIT_USAGE });
  return Number(text);
}

export function parseIndices(text: string): number[] {
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

/** How the index is opened (cache folder, no cache, a fragment), from the options. */
export function openOptions(options: RecallOptions): OpenRecallOptions {
  return {
    ...(options.cacheDir === undefined ? {} : { cacheDir: resolve(options.cacheDir) }),
    ...(options.cache === false ? { cache: false } : {}),
    ...(options.fragment === true ? { fragment: true } : {}),
  };
}

/** Scope, page, page size and regex, from the options (page numbers checked). */
export function searchOptions(options: RecallOptions): SearchOptions {
  const page = positiveInt("--page", options.page);
  const pageSize = positiveInt("--page-size", options.pageSize);
  return { ...(options.scope === undefined ? {} : { scope: options.scope }), ...(page === undefined ? {} : { page }), ...(pageSize === undefined ? {} : { pageSize }), ...(options.regex === true ? { regex: true } : {}) };
}

/** A recall over one session file as its arguments ask for it. */
export interface FileRecall {
  readonly file: string;
  readonly request: RecallRequest;
  readonly open: OpenRecallOptions;
  readonly json: boolean;
  /** --page, when given (a page past the last one is refused). */
  readonly page: number | undefined;
}

/** The request `recall <session> [words…] [options]` makes (not --sessions); throws a usage error for a mistake. */
export function fileRecall(sessionArg: string | undefined, words: readonly string[], options: RecallOptions): FileRecall {
  const search = searchOptions(options);
  const open = openOptions(options);
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
  return { file, request, open, json: options.json === true, page: search.page };
}

/** What the answer's notes say on stderr (how the cache was used; a block table not written). */
export function warnNotes(notes: RecallNotes): void {
  if (notes.cache?.reason !== undefined && notes.cache.status === "memory") warn(`context-fold: ${notes.cache.reason}; searching without a cache`);
  if (notes.cache?.status === "rebuilt") warn(`context-fold: recall index rebuilt (${notes.cache.reason ?? "stale"})`);
  // Only the next search's speed depends on the block table.
  if (notes.snapshotProblem !== undefined) warn(`context-fold: recall snapshot not written (${notes.snapshotProblem})`);
}

/** A --page past the last one is a usage error, not a quiet first page. */
export function refusePastLastPage(page: number | undefined, result: SearchResult): void {
  if (page !== undefined && result.total > 0 && page > result.pages) {
    throw new CliError(`--page ${String(page)}: "${result.query ?? ""}" has ${String(result.pages)} page(s) of hits`, { code: "USAGE", exitCode: EXIT_USAGE });
  }
}

/** Before a search's results are printed: the page checked, and blocks that changed since indexing told (a finding). */
export function checkSearch(result: SearchResult, notes: RecallNotes, page: number | undefined): void {
  refusePastLastPage(page, result);
  for (const c of notes.changed) warn(`context-fold: #${String(c.index)}: ${c.problem}`);
  if (notes.changed.length > 0) setExit(EXIT_FINDINGS);
}
