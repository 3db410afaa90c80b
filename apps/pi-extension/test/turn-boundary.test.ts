// Pi 1.6 dispatches `turn_end` as an actionable boundary: while any extension handles it, Pi copies the
// whole branch into a preview session and projects it before and after each handler, then projects the
// session again, on every turn. The extension must not make every turn pay that (issue 29): loaded by
// Pi's own loader, it registers no `turn_end` and no `agent_before_settle` handler, with default
// settings and with memory on (a bank configured: auto-retain works at `agent_end`, once per run).
import { DefaultResourceLoader } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";
import { afterAll, beforeAll, expect, test } from "vitest";
import { PACKAGE_DIR } from "./support/headless-pi.js";

type Loaded = ReturnType<DefaultResourceLoader["getExtensions"]>;
let plain: Loaded;
let withMemory: Loaded;
const saved = { url: process.env["CONTEXT_FOLD_HINDSIGHT_URL"], agentDir: process.env["PI_CODING_AGENT_DIR"] };

/** Pi's loader over the package, in a cwd and agent dir of their own (Pi keeps loaded extensions per cwd). */
async function load(prefix: string): Promise<Loaded> {
  const dir = tempDir(prefix);
  process.env["PI_CODING_AGENT_DIR"] = dir;
  const loader = new DefaultResourceLoader({ cwd: dir, agentDir: dir, additionalExtensionPaths: [PACKAGE_DIR] });
  await loader.reload();
  return loader.getExtensions();
}

// Loading through Pi's loader (jiti, the source bundles) can take long on a busy machine: a hook's timeout.
beforeAll(async () => {
  Reflect.deleteProperty(process.env, "CONTEXT_FOLD_HINDSIGHT_URL");
  plain = await load("cf-turn-boundary-");
  // A bank configured (never reached: loading registers the handlers and sends nothing).
  process.env["CONTEXT_FOLD_HINDSIGHT_URL"] = "http://127.0.0.1:9";
  withMemory = await load("cf-turn-boundary-memory-");
});

afterAll(() => {
  for (const [key, value] of [["CONTEXT_FOLD_HINDSIGHT_URL", saved.url], ["PI_CODING_AGENT_DIR", saved.agentDir]] as const) {
    if (value === undefined) Reflect.deleteProperty(process.env, key);
    else process.env[key] = value;
  }
});

function eventsOf(loaded: Loaded): string[] {
  expect(loaded.errors).toEqual([]);
  const ours = loaded.extensions.find((extension) => extension.path.includes("pi-extension") || extension.resolvedPath.includes("pi-extension"));
  expect(ours).toBeDefined();
  return [...(ours?.handlers.keys() ?? [])];
}

test("with default settings the extension handles no actionable turn boundary, and still the events it works from", () => {
  const events = eventsOf(plain);
  expect(events).toEqual(expect.arrayContaining(["context", "agent_end", "session_before_compact", "session_compact"]));
  expect(events).not.toContain("turn_end");
  expect(events).not.toContain("agent_before_settle");
  // Memory is off until a bank is configured: no prompt hook of its own.
  expect(events).not.toContain("before_agent_start");
});

test("with memory on, auto-retain works at each run's end: still no actionable turn boundary", () => {
  const events = eventsOf(withMemory);
  // Auto-recall's prompt hook shows memory is registered.
  expect(events).toEqual(expect.arrayContaining(["before_agent_start", "agent_end", "context"]));
  expect(events).not.toContain("turn_end");
  expect(events).not.toContain("agent_before_settle");
});
