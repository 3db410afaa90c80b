// The Pi entry point: wires the fold ladder (`context` hook), recall (tool and commands) and the
// session lifecycle together. Each concern lives in its own module; this file only connects them.
import type { ExtensionAPI } from "@earendil-works/pi-coding-agent";
import { registerCommands } from "./commands.js";
import { CompactionRegistry, registerCompaction } from "./compaction/compaction-hook.js";
import { resolveCompactionOptions } from "./compaction/compaction-options.js";
import { registerContextHook } from "./context-hook.js";
import { resolveFoldOptions } from "./options.js";
import { registerRecallTool } from "./recall-tool.js";
import { notifier, RuntimeRegistry } from "./runtime-registry.js";

export default function contextFold(pi: ExtensionAPI): void {
  const { options, warnings } = resolveFoldOptions({}, process.env);
  const registry = new RuntimeRegistry(options);
  const compaction = resolveCompactionOptions({}, process.env);

  pi.on("session_start", async (_event, ctx) => {
    try {
      registry.reset();
      await registry.get(ctx);
      for (const w of [...warnings, ...compaction.warnings]) notifier(ctx)(`context-fold: ignoring ${w.variable}=${JSON.stringify(w.value)}: ${w.reason}.`);
    } catch {
      // registry.get never rejects; nothing of ours may reach Pi
    }
  });
  pi.on("session_shutdown", () => {
    registry.reset();
  });

  registerContextHook(pi, registry);
  registerRecallTool(pi, registry);
  registerCommands(pi, registry);
  registerCompaction(pi, new CompactionRegistry(registry, compaction.options));
}
