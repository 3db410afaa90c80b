// `context-fold resolve <session.jsonl> <anchor>`: the text a recall anchor names (`:edit:` replacements
// applied), verified against an expected sha256. Missing, ambiguous or mismatching anchors exit 1.
import { resolveAnchor, type ResolveResult } from "@context-fold/ledger-reader";
import { defaultCachePath, loadRecordedHashes, type RecordedCheck } from "@context-fold/recall-engine";
import type { Command } from "commander";
import { CliError, EXIT_FINDINGS, EXIT_USAGE, emit, printJson, setExit, warn } from "../output.js";
import { readSessionForCli } from "../session-input.js";

const SHA256 = /^[0-9a-fA-F]{64}$/;

/** What the text was checked against: the --sha256 given, else the hash recorded when it was first indexed. */
type Check = RecordedCheck | { readonly verified: boolean; readonly verifiedAgainst: "argument"; readonly problem?: string };

function resultJson(result: ResolveResult, check?: Check): Record<string, unknown> {
  switch (result.status) {
    case "ok":
      return {
        anchor: result.anchor,
        status: result.status,
        text: result.text,
        sha256: result.sha256,
        verified: check?.verified ?? false,
        verifiedAgainst: check?.verifiedAgainst ?? "none",
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
        verifiedAgainst: "none",
        candidates: result.candidates.map((b) => ({ block: b.index, entryId: b.entryId })),
      };
    case "missing":
    case "malformed":
      return { anchor: result.anchor, status: result.status, text: null, sha256: null, verified: false, verifiedAgainst: "none", reason: result.reason };
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
      // Checked against --sha256 when given, else against the hash recorded when the block was first
      // indexed (seed index, then the recall block table); never against a second read of the same bytes.
      const check: Check =
        options.sha256 !== undefined
          ? { verified: result.verified === true, verifiedAgainst: "argument" }
          : loadRecordedHashes(session.path, session.header.id, defaultCachePath(session.path, session.header.id)).check({
              // An :edit: anchor's text is the replacement: only a seed-index span of that anchor recorded it.
              index: result.editId === undefined ? result.block.index : -1,
              entryId: result.block.entryId,
              anchor: result.anchor,
              text: result.text,
            });
      const mismatch = !check.verified && check.verifiedAgainst !== "none";
      // Human output is the text itself, byte for byte (pipe it to sha256sum and get the same hash); text
      // that fails the --sha256 check is withheld from stdout, so a pipe never carries it as good.
      if (options.json === true) emit(true, resultJson(result, check), () => "");
      else if (!(mismatch && check.verifiedAgainst === "argument")) process.stdout.write(result.text);
      if (mismatch && check.verifiedAgainst === "argument") {
        warn(`context-fold: ${anchor}: sha256 mismatch: expected ${options.sha256 ?? ""}, text has ${result.sha256}${options.json === true ? "" : " (text withheld; run without --sha256 to see what the ledger holds now)"}`);
        setExit(EXIT_FINDINGS);
      } else if (mismatch) {
        warn(`context-fold: ${anchor}: ${check.problem ?? "changed since it was first indexed"}`);
        setExit(EXIT_FINDINGS);
      }
    });
}
