// The memory parts on their own: secret redaction (and text it must leave alone), the project's name
// from git or the folder, the outbox's states, cap and reload, the retained items of a session Pi's
// own SessionManager wrote (stable ids), the recall block's budget, and the block's injection.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { createFactsAccumulator } from "@context-fold/extractors";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { injectBlock } from "../../src/memory/auto-recall.js";
import { type RecalledMemory, sendFailure } from "../../src/memory/memory-service.js";
import { Outbox, OUTBOX_FILE, outboxKey } from "../../src/memory/outbox.js";
import { gitRemotes, OPT_OUT_FILE, projectBankId, projectIdentity, repoNameOf } from "../../src/memory/project-identity.js";
import { renderRecallBlock } from "../../src/memory/recall-block.js";
import { REDACTED, redactSecrets } from "../../src/memory/redact-secrets.js";
import { type BlockRef, blockRefs, retainItems } from "../../src/memory/retain-items.js";
import { HindsightError } from "@context-fold/memory-gardener-client";
import { appendJob, writeJobSession } from "../support/pi-written-session.js";

describe("redactSecrets", () => {
  test("removes keys, tokens and passwords in their usual forms", () => {
    const cases = [
      "use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx to call it",
      "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "aws AKIAIOSFODNN7EXAMPLE here",
      "Authorization: Bearer abc.def-ghi_jkl~mno",
      "DB_PASSWORD=hunter2hunter2",
      '{"api_key": "0123456789abcdef"}',
      "my password is correcthorse",
      "clone https://alice:s3cr3tpass@example.com/repo.git",
      "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END RSA PRIVATE KEY-----\nafter",
    ];
    const secrets = ["AbCdEfGhIjKlMnOpQrStUvWx", "ghp_abcdefghij", "AKIAIOSFODNN7EXAMPLE", "abc.def-ghi_jkl", "hunter2hunter2", "0123456789abcdef", "correcthorse", "s3cr3tpass", "dozjgNryP4J3", "MIIEpAIBAAKCAQEA7"];
    cases.forEach((text, i) => {
      const out = redactSecrets(text);
      expect(out, text).toContain(REDACTED);
      expect(out, text).not.toContain(secrets[i]);
    });
    expect(redactSecrets("DB_PASSWORD=hunter2hunter2")).toBe(`DB_PASSWORD=${REDACTED}`);
    expect(redactSecrets("key:\n-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\nafter")).toBe(`key:\n${REDACTED}\nafter`);
  });

  test("leaves ordinary text alone", () => {
    for (const text of [
      "Always store the session cache in SQLite, never in JSON files.",
      "The password field must be hashed with argon2 before it is stored.",
      "Rotate the tokens every 30 days; the token bucket holds 600 tokens.",
      "see https://example.com/docs/auth for the login flow",
      "-----BEGIN CERTIFICATE----- is public",
      "git commit -m 'skip the flaky test'",
    ]) {
      expect(redactSecrets(text)).toBe(text);
    }
  });

  test("is linear on adversarial input", { timeout: LINEAR_TIME_MS }, () => {
    const inputs = ["password".repeat(50_000), `${"a".repeat(40)}token:`.repeat(10_000), "sk-".repeat(100_000), "-----BEGIN ".repeat(30_000), "https://a:".repeat(50_000)];
    for (const input of inputs) {
      const start = performance.now();
      redactSecrets(input);
      expect(performance.now() - start, input.slice(0, 20)).toBeLessThan(3000);
    }
  });
});

describe("project identity", () => {
  test("the git remote's repository name, from a worktree too; the folder otherwise; the opt-out file", () => {
    expect(repoNameOf("git@github.com:acme/alpha-service.git")).toBe("alpha-service");
    expect(repoNameOf("https://example.com/acme/beta/")).toBe("beta");
    expect(gitRemotes('[core]\n\tbare = false\n[remote "upstream"]\n\turl = https://x/up.git\n[remote "origin"]\n\turl = git@x:me/mine.git\n')).toEqual(
      new Map([["upstream", "https://x/up.git"], ["origin", "git@x:me/mine.git"]]),
    );
    const repo = tempDir("cf-ident-");
    execFileSync("git", ["init", "-q", repo]);
    execFileSync("git", ["-C", repo, "remote", "add", "origin", "https://example.com/acme/alpha.git"]);
    const sub = join(repo, "src", "deep");
    mkdirSync(sub, { recursive: true });
    expect(projectIdentity(sub, undefined)).toMatchObject({ name: "alpha", source: "git-remote", root: repo, optedOut: false });
    expect(projectIdentity(sub, "custom")).toMatchObject({ name: "custom", source: "config" });
    execFileSync("git", ["-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "--allow-empty", "-m", "init"]);
    const worktree = join(tempDir("cf-ident-wt-"), "wt");
    execFileSync("git", ["-C", repo, "worktree", "add", "-q", worktree]);
    expect(projectIdentity(worktree, undefined)).toMatchObject({ name: "alpha", source: "git-remote" });
    const plain = join(tempDir("cf-ident-plain-"), "my project!");
    mkdirSync(plain);
    expect(projectIdentity(plain, undefined)).toMatchObject({ name: "my-project-", source: "folder" });
    writeFileSync(join(repo, OPT_OUT_FILE), "");
    expect(projectIdentity(sub, undefined).optedOut).toBe(true);
    expect(projectBankId("alpha")).toBe("cf::alpha");
  });
});

describe("outbox", () => {
  const item = (n: number): { bankId: string; documentId: string; item: { content: string; documentId: string } } => ({ bankId: "b", documentId: `d${String(n)}`, item: { content: `memory ${String(n)}`, documentId: `d${String(n)}` } });

  test("enqueue skips known ids, states survive a reopen, sent ids are never enqueued again, the cap drops the oldest", async () => {
    const file = join(tempDir("cf-outbox-"), "ctx", OUTBOX_FILE);
    const box = await Outbox.open(file, 3);
    expect(box.enqueue([item(1), item(2), item(1)])).toEqual({ added: 2, dropped: 0 });
    box.setState(new Set([outboxKey("b", "d1")]), "sending");
    await box.persist();
    const again = await Outbox.open(file, 3);
    expect(again.items.map((i) => [i.documentId, i.state])).toEqual([["d1", "sending"], ["d2", "pending"]]);
    again.markSent(new Set([outboxKey("b", "d1")]));
    expect(again.enqueue([item(1)])).toEqual({ added: 0, dropped: 0 });
    expect(again.enqueue([item(3), item(4), item(5)])).toEqual({ added: 3, dropped: 1 });
    expect(again.items.map((i) => i.documentId)).toEqual(["d3", "d4", "d5"]);
    await again.persist();
    const third = await Outbox.open(file, 3);
    expect(third.dropped).toBe(1);
    expect(third.sentCount).toBe(1);
    expect(third.has("b", "d2")).toBe(false);
    expect(third.has("b", "d1")).toBe(true);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ v: 1, sent: ["b d1"], dropped: 1 });
  });

  test("a damaged file starts an empty outbox", async () => {
    const dir = tempDir("cf-outbox-bad-");
    const file = join(dir, OUTBOX_FILE);
    writeFileSync(file, "{not json");
    expect((await Outbox.open(file, 10)).items).toEqual([]);
  });

  test("send failures: refused connection = not sent, 422 = rejected, a timeout or 500 = unknown (ask the bank)", () => {
    const refused = new HindsightError("x", { status: 0, detail: null, method: "POST", url: "u", cause: Object.assign(new TypeError("fetch failed"), { cause: { code: "ECONNREFUSED" } }) });
    expect(sendFailure(refused)).toBe("not-sent");
    expect(sendFailure(new HindsightError("x", { status: 422, detail: null, method: "POST", url: "u" }))).toBe("rejected");
    expect(sendFailure(new HindsightError("x", { status: 500, detail: null, method: "POST", url: "u" }))).toBe("unknown");
    expect(sendFailure(new HindsightError("x", { status: 0, detail: "no answer", method: "POST", url: "u", cause: Object.assign(new Error("t"), { name: "TimeoutError" }) }))).toBe("unknown");
  });
});

describe("retained items", () => {
  test("from a Pi-written session: founding request and rule verbatim, project-tagged, with session and entry; same ids on a re-read", async () => {
    const dir = tempDir("cf-items-");
    const written = writeJobSession(dir, dir, 0);
    const at = Date.UTC(2026, 10, 29, 12, 0, 0);
    const founding = "Build the frobnicator service in src/frob.ts and log every retry.";
    const rule = "Always store the session cache in SQLite, never in JSON files.";
    written.manager.appendMessage({ role: "user", content: [{ type: "text", text: founding }], timestamp: at });
    appendJob(written.manager, 1, at + 60_000);
    written.manager.appendMessage({ role: "user", content: [{ type: "text", text: rule }], timestamp: at + 120_000 });
    appendJob(written.manager, 2, at + 180_000);
    const build = async (): Promise<ReturnType<typeof retainItems>> => {
      const session = await readSession(written.file);
      const blocks = lineageBlocks(session);
      const acc = createFactsAccumulator({ cwd: dir });
      acc.add(blocks);
      const refs = new Map<number, BlockRef>(blocks.map((b) => [b.index, { entryId: b.entryId, timestamp: b.timestamp }]));
      return retainItems({ facts: acc.facts(), artifacts: acc.artifacts(), blocks: refs, sessionId: session.header.id, project: "frob" });
    };
    const items = await build();
    expect(items.map((i) => i.content)).toEqual([founding, rule]);
    expect(items.map((i) => i.metadata?.["kind"])).toEqual(["founding-request", "preference"]);
    const sessionId = (await readSession(written.file)).header.id;
    for (const i of items) {
      expect(i.tags).toEqual(["project:frob", "source:context-fold", `kind:${i.metadata?.["kind"] ?? ""}`, `session:${sessionId}`]);
      expect(i.metadata?.["entry"]).toMatch(/^[0-9a-f]{8}$/);
      expect(i.documentId).toBe(`context-fold:${sessionId}:${i.metadata?.["kind"] ?? ""}:${i.metadata?.["block"] ?? ""}`);
    }
    expect(JSON.stringify(await build())).toBe(JSON.stringify(items));
  });
});

describe("retained items: one memory per statement", () => {
  test("a founding request that also states a rule is retained once, as the founding request", async () => {
    const dir = tempDir("cf-items-once-");
    const written = writeJobSession(dir, dir, 0);
    const founding = "Always log every retry when you build the frobnicator service.";
    written.manager.appendMessage({ role: "user", content: [{ type: "text", text: founding }], timestamp: Date.UTC(2026, 10, 29) });
    appendJob(written.manager, 1, Date.UTC(2026, 10, 29, 0, 1));
    const session = await readSession(written.file);
    const blocks = lineageBlocks(session);
    const acc = createFactsAccumulator({ cwd: dir });
    acc.add(blocks);
    expect(acc.facts().preferences.map((p) => p.text)).toContain(founding);
    const items = retainItems({ facts: acc.facts(), artifacts: acc.artifacts(), blocks: new Map(), sessionId: session.header.id, project: "frob" });
    expect(items.filter((i) => i.content === founding).map((i) => i.metadata?.["kind"])).toEqual(["founding-request"]);
  });
});

describe("retained items: a resolved error and how", () => {
  test("a failing build fixed by editing the file is retained with the error and the fix", async () => {
    const dir = tempDir("cf-items-error-");
    const written = writeJobSession(dir, dir, 0);
    const m = written.manager;
    const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    let t = Date.UTC(2026, 10, 30, 9, 0, 0);
    const call = (id: string, name: string, args: Record<string, unknown>, output: string, isError: boolean): void => {
      m.appendMessage({ role: "assistant", content: [{ type: "toolCall", id, name, arguments: args }], api: "faux", provider: "faux", model: "faux-1", responseId: `resp_${id}`, usage, stopReason: "toolUse", timestamp: (t += 1000) });
      m.appendMessage({ role: "toolResult", toolCallId: id, toolName: name, content: [{ type: "text", text: output }], isError, timestamp: (t += 1000) });
    };
    m.appendMessage({ role: "user", content: [{ type: "text", text: "Run the build and fix what fails." }], timestamp: t });
    call("c1", "bash", { command: "npx tsc -p ." }, "src/a.ts(3,5): error TS2304: Cannot find name 'foo'.\n\nCommand exited with code 2", true);
    call("c2", "edit", { path: "src/a.ts", oldText: "foo", newText: "bar" }, "Successfully replaced text in src/a.ts.", false);
    call("c3", "bash", { command: "npx tsc -p ." }, "", false);
    const session = await readSession(written.file);
    const blocks = lineageBlocks(session);
    const acc = createFactsAccumulator({ cwd: dir });
    acc.add(blocks);
    const items = retainItems({ facts: acc.facts(), artifacts: acc.artifacts(), blocks: blockRefs(blocks), sessionId: session.header.id, project: "frob" });
    const resolved = items.filter((i) => i.metadata?.["kind"] === "error-resolved");
    expect(resolved.length).toBeGreaterThan(0);
    expect(resolved[0]?.content).toContain("TS2304");
    expect(resolved[0]?.content).toMatch(/fixed by (editing src\/a\.ts|running `npx tsc -p \.` successfully)\.$/);
  });
});

describe("recall block", () => {
  const memory = (id: string, text: string): RecalledMemory => ({
    bankId: "cf::alpha",
    hit: { score: 1, memory: { id, text, context: null, date: "2026-11-30T10:00:00Z", factType: "world", entities: [], tags: [], metadata: {}, state: "valid", invalidationReason: null, invalidatedAt: null, mentionedAt: null, occurredStart: null, occurredEnd: null, documentId: null } },
  });

  test("fenced, best first, within the token budget; nothing → no block", () => {
    const many = Array.from({ length: 50 }, (_, i) => memory(`m${String(i)}`, `memory number ${String(i)} ${"x".repeat(200)}`));
    const block = renderRecallBlock(many, 600);
    expect(block?.text.startsWith("<memories")).toBe(true);
    expect(block?.text.endsWith("</memories>")).toBe(true);
    expect((block?.text.length ?? 0) / 4).toBeLessThanOrEqual(600);
    expect(block?.ids[0]).toBe("m0");
    expect(block?.ids.length).toBeLessThan(50);
    expect(renderRecallBlock([], 600)).toBeUndefined();
  });

  test("injected in front of the prompt's user message only, the others untouched", () => {
    const messages = [
      { role: "user", content: "earlier" },
      { role: "assistant", content: [{ type: "text", text: "ok" }] },
      { role: "user", content: [{ type: "text", text: "where is the cache?" }] },
      { role: "toolResult", content: [] },
    ];
    const out = injectBlock(messages, "where is the cache?", "<memories>…</memories>") as { content: unknown }[];
    expect(out[2]?.content).toEqual([{ type: "text", text: "<memories>…</memories>" }, { type: "text", text: "where is the cache?" }]);
    expect(out[0]).toBe(messages[0]);
    expect(messages[2]?.content).toEqual([{ type: "text", text: "where is the cache?" }]);
    expect(injectBlock(messages, "not there", "b")).toBeUndefined();
  });
});
