// Pi's `context` event → the fold engine. Never throws: on any failure of ours the call goes out with
// Pi's messages unchanged, new folds stop for the session, and the user is told once.
import type { ContextEvent, ContextEventResult, ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import { tokensOfChars } from "./fold/estimate.js";
import { showFooter } from "./footer-status.js";
import { notifier, type RuntimeRegistry } from "./runtime-registry.js";

/** System prompt and tool declarations, when Pi has no token count and the engine must estimate. */
function floorTokens(ctx: ExtensionContext): number {
  try {
    return tokensOfChars(ctx.getSystemPrompt().length);
  } catch {
    return 0;
  }
}

/** Work that follows the fold at each model call, given the usage the hook read (Pi's figure, kept by the runtime's tracker). */
export type AfterContext = (messages: ContextEvent["messages"], usage: { tokens: number | null; contextWindow: number } | undefined, ctx: ExtensionContext) => Promise<void>;

export async function handleContext(registry: RuntimeRegistry, event: ContextEvent, ctx: ExtensionContext, after?: AfterContext): Promise<ContextEventResult | undefined> {
  let runtime;
  try {
    runtime = await registry.get(ctx);
  } catch {
    return undefined; // the registry never rejects; this is belt and braces
  }
  try {
    const usage = runtime.usage.usage(ctx);
    const reported = usage === undefined ? undefined : { tokens: usage.tokens, contextWindow: usage.contextWindow };
    const messages = await runtime.folder.process(event.messages, reported, reported?.tokens == null ? floorTokens(ctx) : 0);
    const notice = runtime.folder.takeNotice();
    if (notice !== undefined) notifier(ctx, "info")(notice);
    // Never throws (it reports its own failures): the folded messages go out whatever it does.
    if (after !== undefined) await after(event.messages, reported, ctx);
    return messages === undefined ? undefined : { messages };
  } catch (error) {
    const failure = runtime.failures.report("folding context", error, notifier(ctx));
    runtime.folder.block(`folding failed: ${failure.message}`);
    return undefined;
  }
}

export function registerContextHook(pi: ExtensionAPI, registry: RuntimeRegistry, after?: AfterContext): void {
  pi.on("context", async (event, ctx) => {
    const result = await handleContext(registry, event, ctx, after);
    // A fold may have happened: the footer follows (after the call's own work, never instead of it).
    showFooter(ctx, await registry.get(ctx));
    return result;
  });
}
