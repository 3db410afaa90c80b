// The binary's one-shot search: `recall <session file> [words…] [options]` answered from the recall cache
// and its block table, the command run most often. Built as one file of its own (tsup.config.ts: this
// module, the recall-engine code it reaches and Node's built-in modules taken without an ES module facade),
// since at this size a process start is mostly loading code. It answers only what the table answers;
// anything else goes back to the binary (main.ts), which runs the command the full way: commander for what
// the fast parse does not take, the ledger read for what the table cannot answer.
import { recallFromTable, renderResults } from "@context-fold/recall-engine/one-shot";
import { parseRecallArgv } from "./commands/recall-argv.js";
import { keepCompilersLight, letCompilersWork } from "./compile-tiers.js";
import { checkSearch, fileRecall, type FileRecall, warnNotes } from "./commands/recall-search.js";
import { endQuietlyOnBrokenPipe, reportError } from "./error-boundary.js";
import { emit, wantsJson, writeStdoutDirectly } from "./output.js";

/** answered: done (or its error told); commander: run the program; ledger: run recall with the table already tried. */
export type OneShot = "answered" | "commander" | "ledger";

/** `argv` (the binary's arguments, `recall` first) answered from the block table, or where else it must go. */
export function recallOneShot(argv: readonly string[]): OneShot {
  const parsed = parseRecallArgv(argv.slice(1));
  if (parsed === null) return "commander";
  // A search the table answers is a short process: V8 keeps to baseline code (compile-tiers.ts; with its
  // defaults TurboFan compiled some ten functions for a process about to end, ~10% of its CPU); the
  // ledger read a table cannot answer gets V8's defaults back. Every table answer hashes (the ledger's
  // edges first): node:crypto is loaded before the flags change, with its code cache (compile-tiers.ts).
  keepCompilersLight(["node:crypto"]);
  let plan: FileRecall;
  let answer: ReturnType<typeof recallFromTable>;
  try {
    plan = fileRecall(parsed.session, parsed.words, parsed.options);
    answer = recallFromTable(plan.file, { ...plan.request, open: plan.open });
  } catch (error) {
    writeStdoutDirectly(endQuietlyOnBrokenPipe);
    reportError(error, wantsJson(argv));
    return "answered";
  }
  // A table answer is a search without salvaged blocks (those come from reading the ledger).
  if (answer === null || answer.kind !== "search" || answer.salvaged.length > 0) {
    letCompilersWork();
    return "ledger";
  }
  // The answer is written to the descriptor itself, process.stdout never made (see writeStdoutDirectly):
  // a closed reader is told by the write's EPIPE, which the error boundary ends quietly.
  writeStdoutDirectly(endQuietlyOnBrokenPipe);
  try {
    const result = answer.result;
    warnNotes(answer.notes);
    checkSearch(result, answer.notes, plan.page);
    emit(plan.json, result, () => renderResults(result));
  } catch (error) {
    reportError(error, wantsJson(argv));
  }
  return "answered";
}
