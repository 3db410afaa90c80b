// Where a command's output goes. With a UI (TUI, RPC) it is a notice. Without one Pi's notify does
// nothing, so the text is printed instead: in print mode (`pi -p`) to stdout — the command's result is the
// output the user asked for; warnings and errors to stderr — and in JSON mode always to stderr, because
// stdout carries Pi's event stream there.
import type { ExtensionContext } from "@earendil-works/pi-coding-agent";

type Level = "info" | "warning" | "error";
type OutputCtx = Pick<ExtensionContext, "ui" | "hasUI" | "mode">;

/** Print `text` where the user of this mode sees it (a no-op only when the mode has no output at all). */
export function emit(ctx: OutputCtx, text: string, level: Level = "info"): void {
  if (ctx.hasUI) {
    ctx.ui.notify(text, level);
    return;
  }
  const line = text.endsWith("\n") ? text : `${text}\n`;
  if (ctx.mode === "print") (level === "info" ? process.stdout : process.stderr).write(line);
  else if (ctx.mode === "json") process.stderr.write(line);
  else ctx.ui.notify(text, level);
}

/**
 * The command's context with `ui.notify` replaced by `emit`, so every message a command (and what it
 * calls) gives the user reaches them in print and JSON modes too. Everything else is the context itself.
 */
export function outputContext<T extends OutputCtx>(ctx: T): T {
  const ui = new Proxy(ctx.ui, {
    get(target, key) {
      if (key === "notify") return (text: string, level?: Level) => emit(ctx, text, level ?? "info");
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return new Proxy(ctx, {
    get(target, key) {
      if (key === "ui") return ui;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
