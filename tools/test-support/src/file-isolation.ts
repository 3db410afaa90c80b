// Setup file of every test project (root vitest.config.ts): what one test file changed in its process is
// undone when the file ends. The projects run with `isolate: false`, so one worker process runs several
// test files one after another (importing Pi and the workspace sources once, not once per file), and
// nothing a file leaves behind may decide how the next one runs: environment variables a test set and
// did not restore (the harness's PI_CODING_AGENT_DIR, a threshold override), process.exitCode left by an
// in-process CLI run (a later `expect(process.exitCode)` must see its own run's code), the working
// directory, fake timers and spies. The file's temp directories are removed here too.
import { afterAll, vi } from "vitest";
import { removeTempDirs } from "./temp-dir.js";

const env = { ...process.env };
const cwd = process.cwd();
const exitCode = process.exitCode;

// Registered before the test file's own hooks, so it runs after every afterAll of the file (vitest runs them as a stack).
afterAll(() => {
  removeTempDirs();
  vi.useRealTimers();
  vi.restoreAllMocks();
  for (const key of Object.keys(process.env)) if (!(key in env)) delete process.env[key];
  for (const [key, value] of Object.entries(env)) if (process.env[key] !== value) process.env[key] = value;
  if (process.cwd() !== cwd) process.chdir(cwd);
  process.exitCode = exitCode;
  // Every module vitest evaluated (workspace sources, test helpers: their module-level state, a reply
  // counter or a clock) is evaluated afresh for the next file, as in a process of its own. What Node
  // itself imported (node_modules: Pi and its SDKs) stays loaded: that is the import saved.
  vi.resetModules();
});
