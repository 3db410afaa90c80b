// Which compactor is in charge when pi-vcc is loaded beside us. pi-vcc is recognised by the names it
// registers (its tool and commands), coming from an extension other than ours. Pi asks every extension's
// `session_before_compact` in load order and keeps the last summary returned, so the one loaded later
// writes the summary. Pi lists commands (and extension tools) in load order, which gives that order.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { HARNESS } from "@context-fold/seed-index-format";
import { RECALL_TOOL } from "../recall-tool.js";
import { VCC_COMPACT_COMMAND, VCC_RECALL_COMMAND, VCC_RECALL_TOOL } from "./vcc-names.js";

/** Our own command: where it sits in Pi's lists says where we were loaded. */
const OUR_COMMAND = "context-fold";
const PI_VCC_NAMES = new Set([VCC_RECALL_TOOL, VCC_COMPACT_COMMAND, VCC_RECALL_COMMAND]);

export interface OtherCompactor {
  /** Where Pi loaded it from. */
  readonly path: string;
  /** It was loaded after us, so its summary is the one Pi keeps. */
  readonly inCharge: boolean;
}

type Listed = { readonly name: string; readonly sourceInfo: { readonly path: string } };

function find(list: readonly Listed[], ours: string): OtherCompactor | undefined {
  const oursAt = list.findIndex((item) => item.name === ours);
  const ourPath = list[oursAt]?.sourceInfo.path;
  if (ourPath === undefined) return undefined;
  const theirsAt = list.findIndex((item) => PI_VCC_NAMES.has(item.name.replace(/:[0-9]{1,6}$/, "")) && item.sourceInfo.path !== ourPath);
  const theirs = list[theirsAt];
  return theirs === undefined ? undefined : { path: theirs.sourceInfo.path, inCharge: theirsAt > oursAt };
}

/** pi-vcc loaded beside us, or undefined. Call at session start (every extension loaded). */
export function otherCompactor(pi: Pick<ExtensionAPI, "getAllTools" | "getCommands">): OtherCompactor | undefined {
  return find(pi.getCommands(), OUR_COMMAND) ?? find(pi.getAllTools(), RECALL_TOOL);
}

export function compactorNotice(other: OtherCompactor, overrideDefaultCompaction: boolean): string {
  const who = other.inCharge
    ? `pi-vcc writes the compaction summary (it is loaded after context-fold, and Pi keeps the last summary)${overrideDefaultCompaction ? "" : "; context-fold's overrideDefaultCompaction is off anyway"}`
    : overrideDefaultCompaction
      ? "context-fold writes the compaction summary (it is loaded after pi-vcc, and Pi keeps the last summary)"
      : "pi-vcc writes the compaction summary (context-fold's overrideDefaultCompaction is off)";
  return `context-fold: pi-vcc is loaded too (${other.path}); ${who}. Both keep their thresholds: either one may hold off or start a compaction. Uninstall one of them to have a single compactor.`;
}

/**
 * Whether a compaction's summary came from another extension: Pi says an extension supplied it
 * (`fromExtension`), and it does not carry our harness mark. Works for any compactor, named or not.
 */
export function summaryFromAnotherExtension(event: { readonly fromExtension: boolean; readonly compactionEntry: { readonly details?: unknown } }): boolean {
  if (!event.fromExtension) return false;
  const details = event.compactionEntry.details as { harness?: unknown } | undefined;
  return details?.harness !== HARNESS;
}

export function foreignSummaryNotice(): string {
  return "context-fold: this compaction's summary was written by another extension loaded after context-fold (Pi keeps the last summary returned); context-fold's record, durable artifacts and digest still apply.";
}
