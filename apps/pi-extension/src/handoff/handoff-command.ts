// `/fold-handoff [--new] <goal>`: writes `handoff-<sessionId>.md` beside the seed index (atomically, by the
// summary formatter's writeHandoff) and, asked to (`--new`, or confirmed in a UI), starts a new Pi session
// seeded with it through `ctx.newSession`. Where Pi offers no new session, the user is told where the text is.
import type { ExtensionAPI, ExtensionCommandContext } from "@earendil-works/pi-coding-agent";
import { writeHandoff } from "@context-fold/summary-formatter";
import { outputContext } from "../command-output.js";
import { notifier, type RuntimeRegistry } from "../runtime-registry.js";
import { runtimeHandoff } from "./runtime-handoff.js";

/** customType of the message a new session is seeded with (in context, displayed). */
export const HANDOFF_MESSAGE = "context-fold-handoff";

export interface HandoffArgs {
  readonly goal: string;
  /** Start a new session seeded with the handoff without asking. */
  readonly startNew: boolean;
}

/** `[--new] <goal words…>` (the flag anywhere among the words). */
export function parseHandoffArgs(args: string): HandoffArgs {
  const words: string[] = [];
  let startNew = false;
  for (const word of args.split(/\s+/)) {
    if (word === "--new") startNew = true;
    else if (word.length > 0) words.push(word);
  }
  return { goal: words.join(" "), startNew };
}

/** The seed message of the new session: where it comes from, then the handoff itself. */
export function handoffSeed(path: string, markdown: string): string {
  return `Handoff from an earlier Pi session (written by context-fold to ${path}). Continue from it:\n\n${markdown}`;
}

async function handoffCommand(registry: RuntimeRegistry, args: string, ctx: ExtensionCommandContext): Promise<void> {
  const request = parseHandoffArgs(args);
  const runtime = await registry.get(ctx);
  if (runtime.sessionFile === undefined) {
    ctx.ui.notify("/fold-handoff: this session has no session file, so there is nothing to hand off.", "warning");
    return;
  }
  const handoff = await runtimeHandoff(runtime, request.goal);
  if (handoff === undefined) {
    ctx.ui.notify("/fold-handoff: Pi has not written this session to disk yet (it does after the first reply); nothing to hand off.", "warning");
    return;
  }
  const written = await writeHandoff(runtime.sessionFile, runtime.sessionId, handoff.markdown);
  ctx.ui.notify(`Handoff written: ${written.path} (${String(written.bytes)} bytes; goal from ${handoff.doc.goal.source}).`, "info");
  const startNew = request.startNew || (ctx.hasUI && (await ctx.ui.confirm("Start a new session from this handoff?", written.path)));
  if (!startNew) return;
  const content = handoffSeed(written.path, handoff.markdown);
  const parentSession = runtime.sessionFile;
  // Pi's default (a host without a session runtime) answers "not cancelled" and does nothing: only a run
  // of withSession proves a new session exists.
  let switched = false;
  try {
    const result = await ctx.newSession({
      parentSession,
      // Seeded before the new session starts: the first prompt there carries the handoff.
      setup: (manager) => {
        manager.appendCustomMessageEntry(HANDOFF_MESSAGE, content, true, { path: written.path, parentSession });
        return Promise.resolve();
      },
      withSession: (next) => {
        switched = true;
        next.ui.notify(`context-fold: new session seeded with the handoff (${written.path}).`, "info");
        return Promise.resolve();
      },
    });
    if (result.cancelled) ctx.ui.notify(`/fold-handoff: the new session was cancelled; the handoff stays at ${written.path}.`, "warning");
    else if (!switched) ctx.ui.notify(`/fold-handoff: Pi could not start a new session here (this host has no session runtime). Start one with /new and paste the handoff from ${written.path}.`, "warning");
  } catch (error) {
    // SDK hosts without a session runtime give commands no newSession: say where the text is instead.
    ctx.ui.notify(
      `/fold-handoff: Pi could not start a new session here (${error instanceof Error ? error.message : String(error)}). Start one with /new and paste the handoff from ${written.path}.`,
      "warning",
    );
  }
}

export function registerHandoffCommand(pi: ExtensionAPI, registry: RuntimeRegistry): void {
  pi.registerCommand("fold-handoff", {
    description: "Write a handoff (goal, state, decisions, open errors, recovery codes) beside the seed index: /fold-handoff [--new] <goal>",
    handler: async (args, commandCtx) => {
      const ctx = outputContext(commandCtx);
      try {
        await handoffCommand(registry, args, ctx);
      } catch (error) {
        notifier(ctx, "error")(`/fold-handoff failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    },
  });
}
