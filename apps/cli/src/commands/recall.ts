// `context-fold recall`: search a session (or every session under a sessions dir) through the cached
// recall index; expand `#N` blocks verified against the ledger; pull seed-index spans by code/anchor/term.
import { basename, resolve } from "node:path";
import type { Command } from "commander";
import type { Block } from "@context-fold/ledger-reader";
import {
  openRecall,
  openRecallSnapshot,
  parseQuery,
  renderResults,
  renderSalvaged,
  searchSalvaged,
  searchSessions,
  SnapshotStaleError,
  spanRecall,
  type ExpandedEntry,
  type OpenRecallOptions,
  type RecordedHashes,
  type SearchResult,
  type SpanRecallResult,
} from "@context-fold/recall-engine";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, setExit, warn } from "../output.js";
import { withProgress } from "../progress.js";
import { sessionsTarget } from "../sessions-target.js";
import { warnDamage, warnFragment } from "../session-input.js";

interface RecallOptions {
  sessions?: string | true;
  scope?: string;
  page?: string;
  pageSize?: string;
  expand?: string;
  code?: string;
  anchor?: string;
  term?: string;
  grep?: string;
  lines?: string;
  fullOutput?: boolean;
  roots?: string;
  regex?: boolean;
  cacheDir?: string;
  cache?: boolean;
  fragment?: boolean;
  json?: boolean;
}

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

function renderExpand(entries: readonly ExpandedEntry[]): string {
  return entries
    .map((e) => {
      const state = e.verified ? `verified against the ${e.verifiedAgainst ?? "ledger"}` : `NOT VERIFIED: ${e.problem ?? "unknown"}`;
      return `=== #${String(e.index)} [${e.label}] turn ${String(e.turn)} (${state}) ===\n${e.text}\n`;
    })
    .join("\n");
}

function renderSpans(result: SpanRecallResult): string {
  const out: string[] = [`${String(result.spans.length)} span(s) from ${result.seedIndex} (${String(result.records)} records)`];
  for (const s of result.spans) {
    const where = s.index === undefined ? "" : ` #${String(s.index)}`;
    out.push("", `=== ${s.code} ${s.blockId}${where} ${s.tool ?? ""} turn ${String(s.turn)} (${s.status}${s.reason === undefined ? "" : `: ${s.reason}`}) ===`);
    if (s.scan !== undefined) {
      const src = s.scan.source === "full-output" ? `full output ${s.scan.path ?? ""}` : "span text";
      out.push(`scan of ${src}: ${String(s.scan.matched)} line(s)${s.scan.truncated ? " (first shown)" : ""}${s.scan.refused === undefined ? "" : ` — full output refused: ${s.scan.refused}`}`);
      for (const line of s.scan.lines) out.push(`${String(line.line).padStart(6)}: ${line.text}`);
    } else if (s.text !== undefined) out.push(s.text);
  }
  return `${out.join("\n")}\n`;
}

/** A --page past the last one is a usage error, not a quiet first page. */
function refusePastLastPage(page: number | undefined, result: SearchResult): void {
  if (page !== undefined && result.total > 0 && page > result.pages) {
    throw new CliError(`--page ${String(page)}: "${result.query ?? ""}" has ${String(result.pages)} page(s) of hits`, { code: "USAGE", exitCode: EXIT_USAGE });
  }
}

async function recall(sessionArg: string | undefined, words: string[], options: RecallOptions): Promise<void> {
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
    const { dir, firstWord } = sessionsTarget(options.sessions);
    const query = [firstWord, sessionArg, ...words].filter((w): w is string => w !== undefined).join(" ");
    if (query.trim().length === 0) throw new CliError("--sessions needs a query", { code: "USAGE", exitCode: EXIT_USAGE });
    if (options.expand !== undefined || options.code !== undefined || options.anchor !== undefined || options.term !== undefined) {
      throw new CliError("--expand, --code, --anchor and --term work on one session file, not --sessions", { code: "USAGE", exitCode: EXIT_USAGE });
    }
    const result = await withProgress("searching sessions", "items", (bar) => searchSessions(dir, query, { ...search, ...open, onProgress: (done, total) => bar.update(done, total) }));
    for (const s of result.skipped) warn(`context-fold: skipped ${s.file}: ${s.reason}`);
    if (result.sessions === 0) throw new CliError(`no readable session under ${dir}`, { code: "NOT_FOUND", exitCode: EXIT_USAGE });
    emit(json, result, () => renderResults(result));
    return;
  }

  if (sessionArg === undefined) throw new CliError("give a session file, or --sessions <dir>", { code: "USAGE", exitCode: EXIT_USAGE });
  const file = resolve(sessionArg);
  const query = words.join(" ");
  if (query.trim().length > 0) {
    const takesNoQuery = options.expand !== undefined ? "--expand" : options.code !== undefined ? "--code" : options.anchor !== undefined ? "--anchor" : options.term !== undefined ? "--term" : undefined;
    if (takesNoQuery !== undefined) throw new CliError(`${takesNoQuery} takes no query words (got "${query}"); search first, then ${takesNoQuery}`, { code: "USAGE", exitCode: EXIT_USAGE });
  }
  // A plain word search or browse: answered from the cache and its block table when both match the
  // ledger's bytes, without parsing the ledger (each shown block's text is read back and checked).
  const plain =
    options.code === undefined && options.anchor === undefined && options.term === undefined && options.expand === undefined &&
    options.grep === undefined && options.lines === undefined && options.fullOutput !== true && options.cache !== false &&
    (query.trim().length === 0 || parseQuery(query, options.regex === true ? { regex: true } : {}).mode !== "regex");
  if (plain) {
    const fast = openRecallSnapshot(file, open);
    if (fast !== null) {
      try {
        const result = query.trim().length === 0 ? fast.browse(options.scope === undefined ? {} : { scope: options.scope }) : fast.search(query, search);
        refusePastLastPage(page, result);
        emit(json, result, () => renderResults(result));
        return;
      } catch (error) {
        // The ledger changed under the snapshot: read it the full way below.
        if (!(error instanceof SnapshotStaleError)) throw error;
      }
    }
  }
  const recallHandle = await withProgress(`indexing ${basename(file)}`, "bytes", (bar) => openRecall(file, { ...open, onBytes: (read, total) => bar.update(read, total) }));
  warnFragment(recallHandle.session);
  warnDamage(recallHandle.session);
  if (recallHandle.cache.reason !== undefined && recallHandle.cache.status === "memory") warn(`context-fold: ${recallHandle.cache.reason}; searching without a cache`);
  if (recallHandle.cache.status === "rebuilt") warn(`context-fold: recall index rebuilt (${recallHandle.cache.reason ?? "stale"})`);
  if (plain) {
    try {
      recallHandle.saveSnapshot();
    } catch (error) {
      // Only the next search's speed depends on it.
      warn(`context-fold: recall snapshot not written (${error instanceof Error ? error.message : String(error)})`);
    }
  }

  if (options.code !== undefined || options.anchor !== undefined || options.term !== undefined) {
    const scan = {
      ...(options.grep === undefined ? {} : { grep: options.grep }),
      ...(options.lines === undefined ? {} : { lines: parseLines(options.lines) }),
      ...(options.fullOutput === true ? { fullOutput: true } : {}),
    };
    const result = await spanRecall(recallHandle.session, {
      ...(options.code === undefined ? {} : { code: options.code }),
      ...(options.anchor === undefined ? {} : { anchor: options.anchor }),
      ...(options.term === undefined ? {} : { term: options.term }),
      ...(Object.keys(scan).length > 0 ? { scan } : {}),
      ...(options.roots === undefined ? {} : { roots: options.roots.split(",").map((r) => resolve(r.trim())) }),
    });
    emit(json, result, () => renderSpans(result));
    if (result.spans.some((s) => !s.verified)) setExit(EXIT_FINDINGS);
    return;
  }
  if (options.grep !== undefined || options.lines !== undefined || options.fullOutput === true) {
    throw new CliError("--grep, --lines and --full-output scan a span: give --code, --anchor or --term", { code: "USAGE", exitCode: EXIT_USAGE });
  }
  if (options.expand !== undefined) {
    const entries = recallHandle.expand(parseIndices(options.expand));
    emit(json, { entries }, () => renderExpand(entries));
    // A finding is text that differs from its recorded hash; nothing recorded is "none", said in the output.
    if (entries.some((e) => !e.verified && e.verifiedAgainst !== "none")) setExit(EXIT_FINDINGS);
    return;
  }
  const found = query.trim().length === 0 ? recallHandle.browse(options.scope === undefined ? {} : { scope: options.scope }) : recallHandle.search(query, search);
  refusePastLastPage(page, found);
  const result = markChanged(found, recallHandle.session.blocks, recallHandle.recordedHashes());
  // Text salvaged from lines that do not parse has no #N: found here, shown as `line N (salvaged)`.
  const salvaged = query.trim().length === 0 ? [] : searchSalvaged(recallHandle.session.damaged, parseQuery(query, options.regex === true ? { regex: true } : {}));
  if (salvaged.length === 0) emit(json, result, () => renderResults(result));
  else emit(json, { ...result, salvaged }, () => `${renderResults(result)}${renderSalvaged(salvaged)}`);
}

/**
 * Marks hits whose text no longer matches the hash recorded when the block was first indexed
 * (`changed: true`, named on stderr): search shows what the ledger holds now, and says when that differs.
 */
function markChanged(result: SearchResult, blocks: readonly Block[], hashes: RecordedHashes): SearchResult {
  let any = false;
  const hits = result.hits.map((hit) => {
    const block = blocks[hit.index];
    if (block === undefined) return hit;
    const check = hashes.check(block);
    if (check.verified || check.verifiedAgainst === "none") return hit;
    any = true;
    warn(`context-fold: #${String(hit.index)}: ${check.problem ?? "changed"}`);
    return { ...hit, changed: true, verifiedAgainst: check.verifiedAgainst };
  });
  if (any) setExit(EXIT_FINDINGS);
  return any ? { ...result, hits } : result;
}

export function registerRecall(program: Command): void {
  program
    .command("recall")
    .description("Search a session's history (BM25 words, \"phrases\", /regex/ or bare regex syntax), browse, expand #N verified, or pull seed-index spans")
    .argument("[session]", "session .jsonl file (omit with --sessions)")
    .argument("[query...]", "words, \"quoted phrases\", /regex/flags, or a bare regex as pi-vcc takes it (fail.*build, hook|inject, \\d, [0-9]+, ^…, …$); none: the last 25 entries")
    .option("--sessions [dir]", "search every session under a sessions folder (default: Pi's, honouring PI_CODING_AGENT_DIR and sessionDir); a value that is not a folder is the first query word")
    .option("--scope <scope>", "lineage (default), all, compaction:N, compaction:latest")
    .option("--page <n>", "page of results (5 per page)")
    .option("--page-size <n>", "results per page")
    .option("--expand <list>", "full text of #N blocks, e.g. 12,13 (verified against the ledger)")
    .option("--code <code>", "seed-index span by fold code")
    .option("--anchor <anchor>", "seed-index span by anchor (r:<toolCallId> or a:<responseId>:p<n>)")
    .option("--term <term>", "seed-index spans of records whose identifiers/errors/files hold the term")
    .option("--grep <pattern>", "with a span: only lines matching the pattern (RE2 syntax)")
    .option("--lines <from-to>", "with a span: only this 1-based line range")
    .option("--full-output", "with a span: scan Pi's full-output file when one was kept (under --roots)")
    .option("--roots <dirs>", "comma-separated roots a full-output file must lie under (default: the OS temp dir)")
    .option("--regex", "take the query as a regex (case-insensitive)")
    .option("--cache-dir <dir>", "keep the recall index cache here (default: beside the seed index)")
    .option("--no-cache", "build the index in memory; read and write no cache")
    .option("--fragment", "read a file without a session header (a fragment Pi refuses) as fragment-<sha256 prefix>")
    .option("--json", "one JSON document on stdout")
    .action(async (session: string | undefined, query: string[], options: RecallOptions) => {
      await recall(session, query, options);
    });
}
