// One SessionRuntime per Pi session, opened on first use. If opening fails (an unreadable seed index,
// say), the session still gets a runtime — with folding off — and the user is told once.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";
import { ContextUsageTracker } from "./fold/context-usage.js";
import { ContextFolder } from "./fold/context-folder.js";
import { FailureReport } from "./failure-report.js";
import { FoldState } from "./fold/fold-state.js";
import type { FoldOptions } from "./options.js";
import { openSessionRuntime, runtimeKey, type SessionRuntime } from "./session-runtime.js";

type RuntimeContext = Pick<ExtensionContext, "sessionManager" | "cwd" | "ui">;

/** Tell the user something through Pi's UI (a no-op in print mode). */
export function notifier(ctx: Pick<ExtensionContext, "ui">, level: "info" | "warning" | "error" = "warning"): (text: string) => void {
  return (text) => ctx.ui.notify(text, level);
}

export class RuntimeRegistry {
  readonly options: FoldOptions;
  #current: { key: string; runtime: Promise<SessionRuntime> } | undefined;
  /** The current session's runtime once opened (for synchronous readers such as argument completion). */
  #opened: SessionRuntime | undefined;

  constructor(options: FoldOptions) {
    this.options = options;
  }

  /** The runtime of the session `ctx` belongs to. Never rejects. */
  get(ctx: RuntimeContext): Promise<SessionRuntime> {
    const key = runtimeKey(ctx);
    if (this.#current?.key !== key) {
      const runtime = this.#open(ctx, key);
      this.#current = { key, runtime };
      this.#opened = undefined;
      void runtime.then((opened) => {
        if (this.#current?.runtime === runtime) this.#opened = opened;
      });
    }
    return this.#current.runtime;
  }

  /** The current session's runtime if it is open already; undefined otherwise. */
  opened(): SessionRuntime | undefined {
    return this.#opened;
  }

  /** Forget the current session (Pi started, switched or shut down a session). */
  reset(): void {
    this.#current = undefined;
    this.#opened = undefined;
  }

  async #open(ctx: RuntimeContext, key: string): Promise<SessionRuntime> {
    try {
      return await openSessionRuntime(ctx, this.options);
    } catch (error) {
      const failures = new FailureReport();
      const failure = failures.report("loading the seed index", error, notifier(ctx));
      const folder = new ContextFolder(new FoldState(), this.options, undefined, `loading the seed index failed: ${failure.message}`);
      return {
        key,
        sessionId: ctx.sessionManager.getSessionId(),
        sessionFile: ctx.sessionManager.getSessionFile(),
        seedIndex: undefined,
        folder,
        recall: undefined,
        failures,
        usage: new ContextUsageTracker(),
      };
    }
  }
}
