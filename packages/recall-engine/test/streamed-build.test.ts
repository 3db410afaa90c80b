// The streamed build of a session's recall files (streamed-build.ts) against the build in memory it stands
// in for (openRecall's save and its block table): byte for byte the same cache and block table, on
// sessions written by Pi's own SessionManager, on real Pi sessions and on generated ones, with the spilled
// runs forced small so that many are merged; written atomically, its spilled files removed on error.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { generateSession } from "@context-fold/session-gen";
import { sessionFixtures, tempDir } from "@context-fold/test-support";
import { readSessionShape } from "@context-fold/ledger-reader";
import { buildRecallFilesStreamed, openRecall, recallFile, recallShapeOf, snapshotPath } from "@context-fold/recall-engine";
import { assistant, toolResult, user, writtenByPi } from "./support/pi-session.js";

/** The files the build in memory writes for `file` (cache, block table or null), at `cachePath`. */
async function inMemory(file: string, cachePath: string): Promise<{ cache: Buffer; table: Buffer | null }> {
  const recall = await openRecall(file, { cachePath });
  expect(recall.cache.status).toBe("built");
  const table = snapshotPath(cachePath);
  return { cache: readFileSync(cachePath), table: existsSync(table) ? readFileSync(table) : null };
}

/** Whether the streamed build gives the same bytes, for each spill size; no spilled files left. */
async function sameBytes(file: string, dir: string, runSizes: readonly (number | undefined)[]): Promise<void> {
  const want = await inMemory(file, join(dir, "memory.recall"));
  for (const runChars of runSizes) {
    const cachePath = join(dir, `streamed-${String(runChars)}.recall`);
    const built = await buildRecallFilesStreamed(file, { cachePath, ...(runChars === undefined ? {} : { runChars }) });
    if (want.table === null) {
      // Not v3, or damaged: no block table, so nothing a search could answer from; read whole instead.
      expect(built).toBeNull();
      continue;
    }
    expect(built?.cachePath).toBe(cachePath);
    expect(readFileSync(cachePath).equals(want.cache), `cache of ${file}, runs of ${String(runChars)} characters`).toBe(true);
    expect(readFileSync(snapshotPath(cachePath)).equals(want.table), `block table of ${file}, runs of ${String(runChars)} characters`).toBe(true);
  }
  if (want.table !== null) {
    // Given the shape its caller read (eval's compaction part), the build reads the file once: the same bytes.
    const cachePath = join(dir, "streamed-given-shape.recall");
    await buildRecallFilesStreamed(file, { cachePath, shape: recallShapeOf(await readSessionShape(file)) });
    expect(readFileSync(cachePath).equals(want.cache), `cache of ${file}, shape given`).toBe(true);
    expect(readFileSync(snapshotPath(cachePath)).equals(want.table), `block table of ${file}, shape given`).toBe(true);
  }
  expect(readdirSync(dir).filter((name) => name.includes(".build-") || name.includes(".tmp"))).toEqual([]);
}

function piWritten(): string {
  return writtenByPi((sm) => {
    sm.appendMessage(user("the refreshToken rotation drops the lease; fix src/auth/lease.ts"));
    sm.appendMessage(assistant([{ type: "thinking", thinking: "look at lease.ts first" }, { type: "toolCall", id: "c1", name: "read", arguments: { path: "src/auth/lease.ts" } }]));
    sm.appendMessage(toolResult("c1", "read", "export function renew(token) { return token.lease; } // 日本語 コメント"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c2", name: "context_recall", arguments: { query: "lease" } }]));
    sm.appendMessage(toolResult("c2", "context_recall", "#3 lease renew (recall traffic, not history)"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c3", name: "bash", arguments: { command: "npm test" } }]));
    sm.appendMessage(toolResult("c3", "bash", "FAIL lease.test.ts: expected 2 leases, got 1", true));
    const branchFrom = sm.getLeafId();
    sm.appendMessage(assistant([{ type: "text", text: "the lease is renewed twice; removing the second renew" }]));
    sm.appendMessage(user("no, keep both renewals and debounce them instead"));
    if (branchFrom !== null) sm.branch(branchFrom);
    sm.appendMessage(assistant([{ type: "text", text: "debouncing the renewals in src/auth/lease.ts (branch)" }]));
    sm.appendMessage(user("ok, and run the tests again"));
  });
}

describe("the streamed build of a session's recall files", () => {
  it("writes the same cache and block table as the build in memory on a Pi-written session with a branch and recall traffic", async () => {
    const dir = tempDir("streamed-pi-");
    await sameBytes(piWritten(), dir, [undefined, 1, 40]);
  });

  it("writes the same bytes on generated sessions (compactions, long tool output), many runs merged", async () => {
    for (const options of [{ seed: 3, turns: 60, compactions: 3 }, { seed: 17, turns: 60 }, { seed: 4, turns: 40, compactions: 2, damage: { tornLines: 2, malformedLines: 2 } }]) {
      const dir = tempDir("streamed-gen-");
      const file = join(dir, "s.jsonl");
      await generateSession(file, options);
      await sameBytes(file, dir, [undefined, 1, 997, 20_000]);
    }
  });

  it("writes the same bytes on every real Pi session fixture (or declines, as the in-memory build writes no table)", async () => {
    for (const file of sessionFixtures()) {
      const dir = tempDir("streamed-real-");
      await sameBytes(file, dir, [undefined, 5000]);
    }
  });

  it("writes the same bytes when the lineage does not run forward in the file (hand-edited): its ids held until the stream ends", async () => {
    const dir = tempDir();
    const file = join(dir, "backwards.jsonl");
    const at = (s: number): string => `2026-03-01T10:00:${String(s).padStart(2, "0")}.000Z`;
    const line = (id: string, parentId: string | null, s: number, message: unknown): string => JSON.stringify({ type: "message", id, parentId, timestamp: at(s), message });
    const header = JSON.stringify({ type: "session", version: 3, id: "019ca8a0-0000-7000-8000-000000000001", timestamp: at(0), cwd: "/p" });
    // File order a, c, b, d; lineage a → b → c → d (c's parent b comes after it).
    writeFileSync(
      file,
      [
        header,
        line("aaaa0001", null, 1, { role: "user", content: "rotate the lease token" }),
        line("cccc0003", "bbbb0002", 3, { role: "user", content: "no, debounce the renewals" }),
        line("bbbb0002", "aaaa0001", 2, { role: "assistant", content: [{ type: "text", text: "renewing the lease twice" }], responseId: "r1" }),
        line("dddd0004", "cccc0003", 4, { role: "assistant", content: [{ type: "text", text: "debounced the lease renewals" }], responseId: "r2" }),
      ].join("\n") + "\n",
    );
    await sameBytes(file, dir, [undefined]);
  });

  it("answers a plain search from the files it built, as the read in memory answers it", async () => {
    const dir = tempDir("streamed-answer-");
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 5, turns: 40 });
    for (const query of ["refreshToken", "checksum drift", "error", ""]) {
      const streamed = await recallFile(file, { query, tables: false, open: { cacheDir: join(dir, "a"), streamAbove: 0 } });
      const whole = await recallFile(file, { query, tables: false, open: { cacheDir: join(dir, "b"), streamAbove: Infinity } });
      if (streamed.kind !== "search" || whole.kind !== "search") throw new Error("a search was answered otherwise");
      expect(JSON.stringify(streamed.result), query).toBe(JSON.stringify(whole.result));
      expect(streamed.recall).toBeNull();
      expect(whole.recall).not.toBeNull();
    }
  });

  it("removes its spilled files and leaves no cache when the cache cannot be written", async () => {
    const dir = tempDir("streamed-fail-");
    const file = join(dir, "s.jsonl");
    await generateSession(file, { seed: 9, turns: 20 });
    // A folder (not empty) where the cache file goes: the rename onto it fails after the runs were merged.
    const cachePath = join(dir, "cache", "x.recall");
    mkdirSync(cachePath, { recursive: true });
    writeFileSync(join(cachePath, "keep"), "");
    await expect(buildRecallFilesStreamed(file, { cachePath, runChars: 100 })).rejects.toThrow();
    expect(readdirSync(dirname(cachePath)).sort()).toEqual(["x.recall"]);
    expect(existsSync(snapshotPath(cachePath))).toBe(false);
  });
});
