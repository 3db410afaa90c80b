// `context-fold resolve <session.jsonl> <anchor>`: the text a recall anchor names (`:edit:` replacements
// applied), verified against an expected sha256. Missing, ambiguous or mismatching anchors exit 1.
import { resolveAnchor, type ResolveResult } from "@context-fold/ledger-reader";
import type { Command } from "commander";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, printJson, setExit, warn } from "../output.js";
import { readSessionForCli } from "../session-input.js";

const SHA256 = /^[0-9a-fA-F]{64}$/;

function resultJson(result: ResolveResult): Record<string, unknown> {
  switch (result.status) {
    case "ok":
      return {
        anchor: result.anchor,
        status: result.status,
        text: result.text,
        sha256: result.sha256,
        verified: result.verified,
        block: result.block.index,
        entryId: result.block.entryId,
        ...(result.editId === undefined ? {} : { editId: result.editId }),
      };
    case "ambiguous":
      return {
        anchor: result.anchor,
        status: result.status,
        text: null,
        sha256: null,
        verified: false,
        candidates: result.candidates.map((b) => ({ block: b.index, entryId: b.entryId })),
      };
    case "missing":
    case "malformed":
      return { anchor: result.anchor, status: result.status, text: null, sha256: null, verified: false, reason: result.reason };
  }
}

export function registerResolve(program: Command): void {
  program
    .command("resolve")
    .description("Print the block text an anchor names (r:<toolCallId>, a:<responseId>:p<n>, optional :edit:<id>), verified by sha256")
    .argument("<session>", "Pi session file (.jsonl)")
    .argument("<anchor>", "recall anchor")
    .option("--sha256 <hex>", "expected sha256 of the text: exit 1 when it does not match")
    .option("--json", "print one JSON document: {anchor, text, sha256, verified, ...}")
    .action(async (file: string, anchor: string, options: { json?: boolean; sha256?: string }) => {
      if (options.sha256 !== undefined && !SHA256.test(options.sha256)) {
        throw new CliError(`--sha256 wants 64 hex digits, got ${JSON.stringify(options.sha256)}`, { code: "USAGE", exitCode: EXIT_USAGE });
      }
      const session = await readSessionForCli(file);
      const result = resolveAnchor(session, anchor, options.sha256);
      if (result.status === "malformed") {
        if (options.json === true) printJson(resultJson(result));
        throw new CliError(`malformed anchor: ${result.reason}`, { code: "MALFORMED_ANCHOR", exitCode: EXIT_USAGE });
      }
      if (result.status !== "ok") {
        if (options.json === true) printJson(resultJson(result));
        if (result.status === "missing") warn(`context-fold: ${anchor}: missing: ${result.reason}`);
        else warn(`context-fold: ${anchor}: ambiguous: blocks ${result.candidates.map((b) => `#${String(b.index)} (entry ${b.entryId})`).join(", ")} carry it`);
        setExit(EXIT_FINDINGS);
        return;
      }
      // Human output is the text itself, byte for byte (pipe it to sha256sum and get the same hash); text
      // that fails the --sha256 check is withheld from stdout, so a pipe never carries it as good.
      if (options.json === true) emit(true, resultJson(result), () => "");
      else if (result.verified !== false) process.stdout.write(result.text);
      if (result.verified === false) {
        warn(`context-fold: ${anchor}: sha256 mismatch: expected ${options.sha256 ?? ""}, text has ${result.sha256}${options.json === true ? "" : " (text withheld; run without --sha256 to see what the ledger holds now)"}`);
        setExit(EXIT_FINDINGS);
      }
    });
}
