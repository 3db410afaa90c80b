// The Pi entry point: wires the fold ladder (`context` hook), recall (tool and commands) and the
// session lifecycle together. Each concern lives in its own module; this file only connects them.
import { type ExtensionAPI, getAgentDir } from "@earendil-works/pi-coding-agent";
import { registerCommands } from "./commands.js";
import { CompactionRegistry, registerCompaction } from "./compaction/compaction-hook.js";
import { registerDebugSnapshots } from "./config/debug-snapshots.js";
import { loadSettings, settingsNotices } from "./config/settings.js";
import { registerContextHook } from "./context-hook.js";
import { registerHandoffCommand } from "./handoff/handoff-command.js";
import { registerInventoryCommand } from "./inventory/inventory-command.js";
import { registerMemory } from "./memory/register-memory.js";
import { registerRecallTool } from "./recall-tool.js";
import { notifier, RuntimeRegistry } from "./runtime-registry.js";

export default function contextFold(pi: ExtensionAPI): void {
  // Defaults, then <agentDir>/context-fold.json (scaffolded on first load), then CONTEXT_FOLD_* variables.
  const settings = loadSettings(process.env, getAgentDir());
  const registry = new RuntimeRegistry(settings.fold);
  const notices = settingsNotices(settings);

  pi.on("session_start", async (_event, ctx) => {
    try {
      registry.reset();
      await registry.get(ctx);
      for (const notice of notices) notifier(ctx)(notice);
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
  registerCompaction(pi, new CompactionRegistry(registry, settings.compaction));
  registerHandoffCommand(pi, registry);
  registerInventoryCommand(pi, registry);
  registerMemory(pi, registry, settings);
  if (settings.debugDir !== undefined) registerDebugSnapshots(pi, registry, settings.debugDir);
}
