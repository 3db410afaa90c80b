// `context-fold artifacts <session.jsonl>`: the durable artifacts a compaction must never lose, in their
// preservation priority — initial prompts and corrections verbatim, error ledger, working commands, hex constants, files.
import { createFactsAccumulator, extractArtifacts, type DurableArtifacts } from "@context-fold/extractors";
import { type LineageRoute, lineageBlocks, lineageInFileOrder, lineageRoute, readSession, type SessionShape, streamRoute } from "@context-fold/ledger-reader";
import type { Command } from "commander";
import { freeHeapPagesOnce } from "../free-heap-pages.js";
import { emit, style } from "../output.js";
import { readSessionForCli, readSessionShapeForCli, streamsSession } from "../session-input.js";

function indent(text: string): string {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

/** Human-readable rendering, categories in priority order; verbatim texts are printed whole, indented. */
export function artifactsText(a: DurableArtifacts): string {
  const out: string[] = [];
  const head = (name: string, n: number): void => {
    if (out.length > 0) out.push("");
    out.push(style(`${name} (${String(n)})`, "bold"));
  };
  head("initial_prompts", a.initialPrompts.length);
  for (const p of a.initialPrompts) out.push(`  #${String(p.index)} turn ${String(p.turn)}:`, indent(p.text));
  head("corrections", a.corrections.length);
  for (const c of a.corrections) out.push(`  #${String(c.index)} turn ${String(c.turn)}:`, indent(c.text));
  head("error_ledger", a.errorLedger.length);
  for (const e of a.errorLedger) {
    const tag = e.resolved ? "[RESOLVED]" : `[${e.severity}]`;
    out.push(`  - ${tag} [${e.source}] ${e.text.replace(/\s+/g, " ")} (#${String(e.index)})`);
  }
  head("working_commands", a.workingCommands.length);
  for (const w of a.workingCommands) out.push(`  - ${w.command} (failed #${String(w.failedIndex)}, worked #${String(w.succeededIndex)})`);
  head("hex_constants", a.hexConstants.length);
  for (const h of a.hexConstants) out.push(`  - ${h.value} (#${String(h.index)})`);
  head("files", a.files.length);
  for (const f of a.files) out.push(`  - ${f}`);
  return out.join("\n");
}

/**
 * Artifacts of the lineage from the session's shape and one streamed read, each entry's blocks fed to
 * the accumulator and dropped (the same as `extractArtifacts` over every lineage block). A lineage that
 * runs backwards in the file (hand-edited) cannot be met in order in one pass: read whole. As `facts`,
 * only the lineage's route is kept of the shape, which is let go before the stream.
 */
export function streamedArtifacts(shape: SessionShape): Promise<DurableArtifacts> {
  const { session } = shape;
  const options = session.header.cwd !== undefined ? { cwd: session.header.cwd } : {};
  if (!lineageInFileOrder(session)) return wholeArtifacts(session.path, options);
  return artifactsAlong(lineageRoute(session), options);
}

async function wholeArtifacts(path: string, options: { cwd?: string }): Promise<DurableArtifacts> {
  return extractArtifacts(lineageBlocks(await readSession(path)), options);
}

async function artifactsAlong(route: LineageRoute, options: { cwd?: string }): Promise<DurableArtifacts> {
  const acc = createFactsAccumulator(options);
  // The shape's pages go back at the first entry, the shape let go by then (free-heap-pages.ts).
  const freePages = freeHeapPagesOnce();
  for await (const { blocks } of streamRoute(route)) {
    freePages();
    acc.add(blocks);
  }
  return acc.artifacts();
}

export function registerArtifacts(program: Command): void {
  program
    .command("artifacts")
    .description("Durable artifacts of a session (initial prompts, corrections verbatim, error ledger, working commands, hex constants, files)")
    .argument("<session.jsonl>", "Pi session file")
    .option("--json", "print the DurableArtifacts structure as one JSON document")
    .action(async (file: string, options: { json?: boolean }) => {
      let artifacts: DurableArtifacts;
      if (streamsSession(file)) artifacts = await streamedArtifacts(await readSessionShapeForCli(file));
      else {
        const session = await readSessionForCli(file);
        artifacts = extractArtifacts(lineageBlocks(session), session.header.cwd !== undefined ? { cwd: session.header.cwd } : {});
      }
      emit(options.json === true, artifacts, () => artifactsText(artifacts));
    });
}
