// The Pi entry point: wires the fold ladder (`context` hook), recall (tool and commands) and the
// session lifecycle together. Each concern lives in its own module; this file only connects them.
import { type ExtensionAPI, getAgentDir } from "@earendil-works/pi-coding-agent";
import { registerCommands } from "./commands.js";
import { CompactionRegistry, prepareAfterToolTurn, registerCompaction } from "./compaction/compaction-events.js";
import { registerDebugSnapshots } from "./config/debug-snapshots.js";
import { loadSettings, settingsNotices } from "./config/settings.js";
import { registerContextHook } from "./context-hook.js";
import { showFooter } from "./footer-status.js";
import { registerHandoffCommand } from "./handoff/handoff-command.js";
import { registerInventoryCommand } from "./inventory/inventory-command.js";
import { registerMemory } from "./memory/register-memory.js";
import { registerRecallTool } from "./recall-tool.js";
import { compactorNotice, foreignSummaryNotice, otherCompactor, summaryFromAnotherExtension } from "./pi-vcc/compactor-in-charge.js";
import { registerVccNames } from "./pi-vcc/vcc-names.js";
import { notifier, RuntimeRegistry } from "./runtime-registry.js";

export default function contextFold(pi: ExtensionAPI): void {
  // Defaults, then <agentDir>/context-fold.json (scaffolded on first load), then CONTEXT_FOLD_* variables.
  const settings = loadSettings(process.env, getAgentDir());
  const registry = new RuntimeRegistry(settings.fold);
  const notices = settingsNotices(settings);
  const vccNames = registerVccNames(pi, registry);

  pi.on("session_start", async (_event, ctx) => {
    try {
      registry.reset();
      showFooter(ctx, await registry.get(ctx));
      for (const notice of notices) notifier(ctx)(notice);
      // pi-vcc's names, once every extension has loaded (ours are skipped where another holds one).
      vccNames(ctx);
      const other = otherCompactor(pi);
      if (other !== undefined) notifier(ctx, "info")(compactorNotice(other, settings.compaction.overrideDefaultCompaction));
    } catch {
      // registry.get never rejects; nothing of ours may reach Pi
    }
  });
  // Another compactor's summary won (it was loaded after us): say so, once per extension instance.
  let toldForeign = false;
  pi.on("session_compact", (event, ctx) => {
    try {
      if (!toldForeign && summaryFromAnotherExtension(event)) {
        toldForeign = true;
        notifier(ctx, "info")(foreignSummaryNotice());
      }
    } catch {
      // a stale UI: nothing to tell
    }
  });
  pi.on("session_shutdown", () => {
    registry.reset();
  });

  const compaction = new CompactionRegistry(registry, settings.compaction);
  registerContextHook(pi, registry, (messages, usage, ctx) => prepareAfterToolTurn(compaction, messages, usage, ctx));
  registerRecallTool(pi, registry);
  registerCommands(pi, registry);
  registerCompaction(pi, compaction);
  registerHandoffCommand(pi, registry);
  registerInventoryCommand(pi, registry);
  registerMemory(pi, registry, settings);
  if (settings.debugDir !== undefined) registerDebugSnapshots(pi, registry, settings.debugDir);
}
