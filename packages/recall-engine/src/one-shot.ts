// `@context-fold/recall-engine/one-shot`: what a one-shot search (the CLI's `recall <session> words`)
// loads before it knows it needs more: the answer from the cache and its block table, and the text of
// results. Its module graph leaves out the ledger reader's parse, the seed-index records and the history
// index, which cost a process start more than the search; when it answers null, the caller loads the
// package itself and reads the ledger (`recallFile` with `tables: false`).
export { recallFromTable } from "./table-recall.js";
export type { OpenRecallOptions } from "./open-options.js";
export type { RecallAnswer, RecallNotes, RecallRequest } from "./recall-request.js";
export { type PageSyntax, renderResults } from "./render.js";
export type { SearchResult } from "./results.js";
