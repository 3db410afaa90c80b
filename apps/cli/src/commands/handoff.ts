// `context-fold handoff <session.jsonl>`: write the handoff seed (goal, current state, decisions, open
// errors, recovery pointers) as handoff-<sessionId>.md beside the seed index, atomically.
import { resolve } from "node:path";
import { currentView, handoffPath, recordSpans, SeedIndexError, seedIndexPath } from "@context-fold/seed-index-format";
import { readSession, type Session, type SessionHeader, type SessionShape } from "@context-fold/ledger-reader";
import { type SessionHandoff, type SessionHandoffOptions, sessionHandoff, sessionHandoffStreamed, writeHandoff } from "@context-fold/summary-formatter";
import type { Command } from "commander";
import { freeHeapPages, freeHeapPagesOnce } from "../free-heap-pages.js";
import { CliError, emit, warn } from "../output.js";
import { readIndexOutcomes } from "../seed-view.js";
import { branchCutShort, readSessionForCli, readSessionShapeForCli, refuseSessionTarget, streamsSession, warnOrphanedFounding } from "../session-input.js";

const ISO_8601 = /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{1,9})?(?:Z|[+-][0-9]{2}:[0-9]{2})$/;

interface HandoffCliOptions {
  goal?: string;
  out?: string;
  now?: string;
  maxSpans?: string;
  json?: boolean;
}

/**
 * The seed index's current view, [] when there is none; a broken index is reported, never fatal. For a
 * session that streams (`lean`) its records are read without their spans, which the handoff walks from
 * the file (`seedSpans`): after `index` on a 1 GB session the view holds a million spans on one 213 MB line.
 */
async function seedView(file: string, lean: boolean): Promise<Pick<SessionHandoffOptions, "seedRecords" | "seedSpans">> {
  try {
    const { outcomes } = await readIndexOutcomes(file, lean);
    const invalid = outcomes.filter((o) => o.outcome === "invalid").length;
    if (invalid > 0) warn(`context-fold: ${file}: ${String(invalid)} invalid line(s) skipped (see \`context-fold records validate\`)`);
    const records = currentView(outcomes);
    const spans = recordSpans(records, outcomes);
    // Walked when the doc is built (a file replaced meanwhile is a SeedIndexUnreadableError, told with its code).
    return !lean || spans.count === 0 ? { seedRecords: records } : { seedSpans: spans };
  } catch (error) {
    if (error instanceof SeedIndexError) {
      warn(`context-fold: ${error.message}; the handoff lists no fold codes`);
      return { seedRecords: [] };
    }
    throw error;
  }
}

/**
 * The session's header and how to make its handoff: streamed from its shape, or from a whole read. The
 * handoff asks for its options (`optionsOf`) once the shape is let go when it streams: what they read
 * (the seed index) then does not come on top of the shape.
 */
async function handoffInput(file: string): Promise<{ header: SessionHeader; handoff: (optionsOf: () => Promise<SessionHandoffOptions>) => Promise<SessionHandoff> }> {
  let session: Session;
  if (streamsSession(file)) {
    const shape = await readSessionShapeForCli(file);
    if (branchCutShort(shape.session) === undefined) {
      // The closure holds `slot`, not the shape: the call that streams takes the shape out and lets it go.
      const slot: { shape?: SessionShape } = { shape };
      return {
        header: shape.session.header,
        handoff: (optionsOf) => {
          const taken = slot.shape;
          delete slot.shape;
          if (taken === undefined) return Promise.reject(new Error("handoff: the session was already streamed"));
          // V8's emptied pages go back when the options are asked for, the shape let go by then, and at
          // the stream's first entry, the fold spans walked by then (free-heap-pages.ts).
          const options = (): Promise<SessionHandoffOptions> => {
            freeHeapPages();
            return optionsOf();
          };
          return sessionHandoffStreamed(taken, options, freeHeapPagesOnce());
        },
      };
    }
    session = await readSession(file);
  } else session = await readSessionForCli(file);
  warnOrphanedFounding(session, "handoff");
  return { header: session.header, handoff: async (optionsOf) => sessionHandoff(session, await optionsOf()) };
}

export function registerHandoff(program: Command): void {
  program
    .command("handoff")
    .description("Write handoff-<sessionId>.md beside the seed index: goal, current state, decisions, open errors, recovery pointers")
    .argument("<session.jsonl>", "Pi session file")
    .option("--goal <text>", "the goal to hand off (default: the founding request)")
    .option("--out <path>", "write here instead of beside the seed index")
    .option("--now <iso>", "time printed in the handoff (default: the last entry's timestamp)")
    .option("--max-spans <n>", "most fold codes listed, most recent first kept (default 40)")
    .option("--json", "print {path, bytes, goal, openErrors, pointers}")
    .action(async (file: string, options: HandoffCliOptions) => {
      if (options.now !== undefined && !ISO_8601.test(options.now)) {
        throw new CliError(`--now must be an ISO-8601 time such as 2026-07-28T21:14:03.000Z, got "${options.now}"`, { code: "BAD_OPTION" });
      }
      if (options.maxSpans !== undefined && !/^\d{1,6}$/.test(options.maxSpans)) {
        throw new CliError(`--max-spans must be a whole number, got "${options.maxSpans}"`, { code: "BAD_OPTION" });
      }
      // The shape, then one streamed read of the lineage (facts accumulated entry by entry, no text kept).
      // A branch cut short by damage is read whole: its warning quotes founding requests by their text.
      // (A session up to STREAM_ABOVE_BYTES is read whole: one parse.) Nothing here holds the shape past
      // the call that streams: `sessionHandoffStreamed` keeps only its lineage's route, then reads the seed index.
      const read = await handoffInput(file);
      const { header } = read;
      const sessionFile = resolve(file);
      const indexFile = seedIndexPath(sessionFile, header.id);
      const target = options.out === undefined ? handoffPath(sessionFile, header.id) : resolve(options.out);
      refuseSessionTarget(target, sessionFile, "--out");
      const handoffOptions = async (): Promise<SessionHandoffOptions> => ({
        sessionFile,
        seedIndexFile: indexFile,
        ...(await seedView(indexFile, streamsSession(file))),
        ...(options.goal === undefined ? {} : { goal: options.goal }),
        ...(options.now === undefined ? {} : { now: options.now }),
        ...(options.maxSpans === undefined ? {} : { maxSpans: Number(options.maxSpans) }),
      });
      const { doc, markdown } = await read.handoff(handoffOptions);
      const written = await writeHandoff(sessionFile, header.id, markdown, { out: target });
      emit(options.json === true, { path: written.path, bytes: written.bytes, goal: doc.goal, openErrors: doc.openErrors, pointers: doc.pointers }, () => written.path);
    });
}
