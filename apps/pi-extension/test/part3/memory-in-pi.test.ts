// Memory across sessions in a real Pi: with a Hindsight bank configured, a compaction retains the
// session's founding request and corrections (verbatim, tagged with the project) to a real local bank;
// neither a later compaction nor a restart sends anything twice; a slow bank never holds up the
// compaction; a dead bank (closed port) changes nothing in the compaction and is reported once.
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { basename, dirname, join } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { HindsightClient, type Memory } from "@context-fold/memory-gardener-client";
import { readSeedIndexFile, seedIndexPath } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { DIGEST_MESSAGE } from "../../src/compaction/compaction-hook.js";
import { RETAINED_FILE } from "../../src/memory/memory-retention.js";
import { MEMORY_SOURCE_TAG, projectTag } from "../../src/memory/retain-items.js";
import { CORRECTION, FOUNDING, type RuntimePi, startRuntimePi, waitFor } from "./support/runtime-pi.js";

const WINDOW = 20_000;
const SETTINGS = { compaction: { enabled: false, keepRecentTokens: 2000 } };
const BANK = "cf-part3";
const LATER_CORRECTION = "Actually, stop using printf for the job output; write it with a heredoc instead.";

async function memories(bank: LocalBank): Promise<readonly Memory[]> {
  const page = await new HindsightClient({ baseUrl: bank.url, retries: 0 }).listMemories(BANK, { limit: 100 });
  return page.items;
}

/** A port nothing listens on: bound once, then closed. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The scripted session every case runs: founding request, jobs, a correction, jobs, then /compact. */
async function runAndCompact(pi: RuntimePi): Promise<void> {
  await pi.session.prompt(FOUNDING);
  for (let n = 1; n <= 2; n++) await pi.session.prompt(`job ${String(n)}`);
  await pi.session.prompt(CORRECTION);
  for (let n = 3; n <= 4; n++) await pi.session.prompt(`job ${String(n)}`);
  await pi.session.compact();
}

function compactionEntries(pi: RuntimePi): { fromHook: boolean; summary: string }[] {
  return pi.session.sessionManager.getEntries().flatMap((e) => (e.type === "compaction" ? [{ fromHook: e.fromHook === true, summary: e.summary }] : []));
}

function digests(pi: RuntimePi): number {
  return pi.session.sessionManager.getEntries().filter((e) => e.type === "custom_message" && e.customType === DIGEST_MESSAGE).length;
}

async function compactRecords(pi: RuntimePi): Promise<number> {
  const manager = pi.session.sessionManager;
  const { outcomes } = await readSeedIndexFile(seedIndexPath(manager.getSessionFile() ?? "", manager.getSessionId()));
  return outcomes.filter((o) => o.outcome === "record" && o.record.trigger === "compact").length;
}

describe("memory across sessions (Hindsight) in a headless Pi", () => {
  const banks: LocalBank[] = [];
  afterAll(async () => {
    for (const bank of banks) await bank.close();
  });

  test("a compaction retains the founding request and the correction, verbatim, tagged with the project; nothing is sent twice", async () => {
    const bank = await startLocalBank({ port: 0 });
    banks.push(bank);
    const dir = tempDir("pi-memory-");
    const pi = await startRuntimePi({ dir, contextWindow: WINDOW, settings: SETTINGS, env: { CONTEXT_FOLD_HINDSIGHT_URL: bank.url, CONTEXT_FOLD_HINDSIGHT_BANK: BANK } });
    try {
      await runAndCompact(pi);
      expect(compactionEntries(pi)[0]?.fromHook).toBe(true);
      await waitFor(async () => (await memories(bank)).length >= 2, "the retained memories");
      const stored = await memories(bank);
      const texts = stored.map((m) => m.text);
      expect(texts).toContain(FOUNDING);
      expect(texts).toContain(CORRECTION);
      const project = projectTag(basename(dir));
      for (const m of stored) {
        expect(m.tags).toContain(project);
        expect(m.tags).toContain(MEMORY_SOURCE_TAG);
        expect(m.documentId).toMatch(new RegExp(`^context-fold:${pi.session.sessionManager.getSessionId()}:`));
      }
      const count = stored.length;
      // A second compaction with nothing new: no request at all.
      for (let n = 5; n <= 7; n++) await pi.session.prompt(`job ${String(n)}`);
      const requestsBefore = bank.faults.counters().requests;
      await pi.session.compact();
      expect(compactionEntries(pi)).toHaveLength(2);
      await waitFor(() => digests(pi) === 2, "the second digest");
      // Let a retention (if one were sent) land, then check: no request, no new memory.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(bank.faults.counters().requests).toBe(requestsBefore);
      expect((await memories(bank)).length).toBe(count);
      // A third compaction after a new correction: only that one is retained.
      await pi.session.prompt(LATER_CORRECTION);
      for (let n = 8; n <= 10; n++) await pi.session.prompt(`job ${String(n)}`);
      await pi.session.compact();
      await waitFor(async () => (await memories(bank)).length > count, "the new correction");
      await new Promise((resolve) => setTimeout(resolve, 300));
      const after = await memories(bank);
      expect(after.length).toBe(count + 1);
      expect(after.filter((m) => !stored.some((s) => s.id === m.id)).map((m) => m.text)).toEqual([LATER_CORRECTION]);
      expect(pi.notices.filter((n) => n.text.includes("memory bank"))).toEqual([]);
    } finally {
      await pi.dispose();
    }
  }, 120_000);

  test("a restart sends nothing twice: what was retained is remembered beside the seed index", async () => {
    const bank = await startLocalBank({ port: 0 });
    banks.push(bank);
    const dir = tempDir("pi-memory-restart-");
    const env = { CONTEXT_FOLD_HINDSIGHT_URL: bank.url, CONTEXT_FOLD_HINDSIGHT_BANK: BANK };
    const first = await startRuntimePi({ dir, contextWindow: WINDOW, settings: SETTINGS, env });
    let file = "";
    try {
      await runAndCompact(first);
      await waitFor(async () => (await memories(bank)).length >= 2, "the retained memories");
      file = first.session.sessionManager.getSessionFile() ?? "";
      const retained = join(dirname(seedIndexPath(file, first.session.sessionManager.getSessionId())), RETAINED_FILE);
      await waitFor(() => existsSync(retained), "the retained list");
    } finally {
      await first.dispose();
    }
    const count = (await memories(bank)).length;
    const again = await startRuntimePi({ dir, contextWindow: WINDOW, settings: SETTINGS, env, open: file });
    try {
      for (let n = 5; n <= 7; n++) await again.session.prompt(`job ${String(n)}`);
      const requestsBefore = bank.faults.counters().requests;
      await again.session.compact();
      await waitFor(() => digests(again) === 2, "the digest after the restart (the first run left one)");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(bank.faults.counters().requests).toBe(requestsBefore);
      expect((await memories(bank)).length).toBe(count);
    } finally {
      await again.dispose();
    }
  }, 120_000);

  test("a slow bank never holds up the compaction: it is done (entry, record, digest) before the bank has stored anything", async () => {
    const bank = await startLocalBank({ port: 0, faults: { delayMs: 3000 } });
    banks.push(bank);
    const dir = tempDir("pi-memory-slow-");
    const pi = await startRuntimePi({ dir, contextWindow: WINDOW, settings: SETTINGS, env: { CONTEXT_FOLD_HINDSIGHT_URL: bank.url, CONTEXT_FOLD_HINDSIGHT_BANK: BANK } });
    try {
      await runAndCompact(pi);
      // Compaction finished, with everything it produces…
      expect(compactionEntries(pi)).toHaveLength(1);
      expect(await compactRecords(pi)).toBe(1);
      await waitFor(() => digests(pi) === 1, "the digest");
      // …while the bank still holds nothing (every request waits 3 s there).
      bank.faults.clear();
      const page = await new HindsightClient({ baseUrl: bank.url, retries: 0 }).listMemories(BANK, { limit: 100 }).catch(() => ({ items: [] }));
      expect(page.items).toHaveLength(0);
      // The retention still lands afterwards.
      await waitFor(async () => (await memories(bank)).some((m) => m.text === FOUNDING), "the late retention");
    } finally {
      await pi.dispose();
    }
  }, 120_000);

  test("a dead bank (closed port) changes nothing in the compaction and is reported once", async () => {
    const port = await deadPort();
    const dead = await startRuntimePi({
      dir: tempDir("pi-memory-dead-"),
      contextWindow: WINDOW,
      settings: SETTINGS,
      env: { CONTEXT_FOLD_HINDSIGHT_URL: `http://127.0.0.1:${String(port)}`, CONTEXT_FOLD_HINDSIGHT_BANK: BANK, CONTEXT_FOLD_HINDSIGHT_TIMEOUT_MS: "500" },
    });
    const plain = await startRuntimePi({ dir: tempDir("pi-memory-none-"), contextWindow: WINDOW, settings: SETTINGS, env: { CONTEXT_FOLD_CONFIG: "off" } });
    try {
      await runAndCompact(dead);
      await runAndCompact(plain);
      const [withDead, without] = [compactionEntries(dead), compactionEntries(plain)];
      expect(withDead).toHaveLength(1);
      expect(withDead[0]?.fromHook).toBe(true);
      // The same session compacts to the same summary with or without a (dead) memory bank.
      const normalize = (s: string | undefined): string => (s ?? "").replaceAll(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, "<time>");
      expect(normalize(withDead[0]?.summary)).toBe(normalize(without[0]?.summary));
      expect(await compactRecords(dead)).toBe(1);
      await waitFor(() => digests(dead) === 1, "the digest");
      await waitFor(() => dead.notices.some((n) => n.text.includes("memory bank")), "the failure notice");
      // A second compaction fails the same way: still one notice.
      for (let n = 5; n <= 7; n++) await dead.session.prompt(`job ${String(n)}`);
      await dead.session.compact();
      await waitFor(() => digests(dead) === 2, "the second digest");
      await new Promise((resolve) => setTimeout(resolve, 700));
      const failures = dead.notices.filter((n) => n.text.includes("memory bank"));
      expect(failures).toHaveLength(1);
      expect(failures[0]?.text).toContain("Compaction is unaffected");
      expect(failures[0]?.level).toBe("warning");
    } finally {
      await dead.dispose();
      await plain.dispose();
    }
  }, 120_000);
});
