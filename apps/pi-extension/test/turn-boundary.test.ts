// Pi 1.6 dispatches `turn_end` as an actionable boundary: while any extension handles it, Pi copies the
// whole branch into a preview session and projects it before and after each handler, then projects the
// session again, on every turn. The extension must not make every turn pay that (issue 29): loaded by
// Pi's own loader with default settings, it registers no `turn_end` and no `agent_before_settle`
// handler. (Memory's auto-retain, on only once a bank is configured, still uses `turn_end`.)
import { DefaultResourceLoader } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";
import { beforeAll, expect, test } from "vitest";
import { PACKAGE_DIR } from "./support/headless-pi.js";

let loaded: ReturnType<DefaultResourceLoader["getExtensions"]>;

// Loading through Pi's loader (jiti, the source bundles) can take long on a busy machine: a hook's timeout.
beforeAll(async () => {
  const dir = tempDir("cf-turn-boundary-");
  process.env["PI_CODING_AGENT_DIR"] = dir;
  // A cwd of its own: Pi keeps loaded extensions per cwd, so this load goes through the loader afresh.
  const loader = new DefaultResourceLoader({ cwd: dir, agentDir: dir, additionalExtensionPaths: [PACKAGE_DIR] });
  await loader.reload();
  loaded = loader.getExtensions();
});

test("with default settings the extension handles no actionable turn boundary, and still the events it works from", () => {
  expect(loaded.errors).toEqual([]);
  const ours = loaded.extensions.find((extension) => extension.path.includes("pi-extension") || extension.resolvedPath.includes("pi-extension"));
  expect(ours).toBeDefined();
  const events = [...(ours?.handlers.keys() ?? [])];
  expect(events).toEqual(expect.arrayContaining(["context", "agent_end", "session_before_compact", "session_compact"]));
  expect(events).not.toContain("turn_end");
  expect(events).not.toContain("agent_before_settle");
});
