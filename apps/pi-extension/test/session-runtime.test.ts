// The session runtime's shared seed scans: with folding on, the fold stretch and the compaction's facts
// share one cache (a block scanned once); with folding off the stretch never reads a scan, so there is
// no cache to hold every scan the compaction made until the session ends.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { DEFAULT_FOLD_OPTIONS } from "../src/options.js";
import { openSessionRuntime } from "../src/session-runtime.js";

function ctxFor(file: string): Parameters<typeof openSessionRuntime>[0] {
  const sessionManager = {
    getSessionFile: () => file,
    getSessionId: () => "s1",
    getHeader: () => ({ id: "s1" }),
    getEntries: () => [],
  };
  return { sessionManager, cwd: "/home/dev/repo" } as unknown as Parameters<typeof openSessionRuntime>[0];
}

describe("session runtime", () => {
  it("shares seed scans between the fold stretch and the compaction only while folding is on", async () => {
    const file = join(tempDir("session-runtime-"), "session.jsonl");
    const on = await openSessionRuntime(ctxFor(file), DEFAULT_FOLD_OPTIONS);
    expect(on.folder.target?.scans).toBeDefined();
    const off = await openSessionRuntime(ctxFor(file), { ...DEFAULT_FOLD_OPTIONS, enabled: false });
    expect(off.folder.target).toBeDefined();
    expect(off.folder.target?.scans).toBeUndefined();
  });
});
