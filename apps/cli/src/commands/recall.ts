// `context-fold recall`: search a session (or every session under a sessions dir) through the cached
// recall index; expand `#N` blocks verified against the ledger; pull seed-index spans by code/anchor/term.
//
// The first search of a session builds its index and block table. A session the CLI streams (over
// STREAM_ABOVE_BYTES, session-input.ts) has both built streamed (recall-engine's streamed-build.ts: the
// shape for the lineage, then the ledger entry by entry, postings spilled in sorted runs and merged on
// disk, the table's columns spilled), byte for byte what the read in memory writes, and the search is
// answered from them as a later search is (both read by offset). A smaller one is read whole, as are
// sessions that can have no block table (not v3, or damaged) and searches the table cannot answer
// (a regex, --expand, spans).
import { basename } from "node:path";
import type { Command } from "commander";
import type { OpenRecallOptions, RecallAnswer, RecallRequest } from "@context-fold/recall-engine";
// A plain search is answered from the block table through the light entry; the package itself (and the
// ledger reader it brings) is imported only when the answer needs more (see @context-fold/recall-engine/one-shot).
import { recallFromTable, renderResults } from "@context-fold/recall-engine/one-shot";
import { RECALL_ARGUMENTS, RECALL_DESCRIPTION, RECALL_OPTIONS, type RecallOptions } from "./recall-options.js";
import { checkSearch, fileRecall, warnNotes } from "./recall-search.js";
import { EXIT_FINDINGS, emit, setExit } from "../output.js";
import { withProgress } from "../progress.js";

/** `request` answered by reading the ledger (and saving a fresh block table), the table not tried again. */
async function readInFull(file: string, request: RecallRequest, open: OpenRecallOptions): Promise<RecallAnswer> {
  const { recallFile } = await import("@context-fold/recall-engine");
  const { growHeapForStreaming, streamsSession } = await import("../session-input.js");
  const streams = streamsSession(file);
  // A streamed build reads a stream and a shape, as the streamed commands do: the same heap growth.
  if (streams) growHeapForStreaming();
  const streamAbove = streams ? 0 : Infinity;
  return withProgress(`indexing ${basename(file)}`, "bytes", (bar) => recallFile(file, { ...request, tables: false, open: { ...open, streamAbove, onBytes: (read, total) => bar.update(read, total) } }));
}

/**
 * `recall` as its action runs it (commander, or the binary's parse: recall-argv.ts). `how.table: false`:
 * the block table was already tried for this request (the binary's one-shot search, recall-one-shot.ts),
 * so the ledger is read at once.
 */
export async function recall(sessionArg: string | undefined, words: string[], options: RecallOptions, how: { table?: boolean } = {}): Promise<void> {
  if (options.sessions !== undefined) {
    // Across a history: a module of its own (the binary runs it from its own bundle, recall-sessions-one-shot.ts).
    const { recallSessions } = await import("./recall-sessions.js");
    await recallSessions(sessionArg, words, options);
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
