// Incremental reads (only the appended bytes) and the truncation property: any sequence of Pi appends,
// cut at any byte, reads without throwing and loses only the torn tail.
import { appendFileSync, readFileSync, renameSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";
import { LedgerError, readSession, streamEntries, updateSession, updateSessionSync, type Session } from "@context-fold/ledger-reader";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { assistant, bashExecution, toolResult, user } from "./pi-messages.js";
import { expectSameAsPi } from "./pi-oracle.js";

function fileOf(sm: SessionManager): string {
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return file;
}

/** The parts of a Session that must not depend on how it was read. */
function shape(session: Session): unknown {
  return {
    entries: session.entries.map((e) => [e.id, e.parentId, e.line, e.byteOffset, e.byteLength, e.turn]),
    blocks: session.blocks,
    leafId: session.leafId,
    lineage: session.lineage.map((e) => e.id),
    roots: session.roots,
    branchPoints: session.branchPoints,
    compactions: session.compactions,
    damaged: session.damaged,
    byteLength: session.byteLength,
  };
}

describe("lines longer than a read chunk", () => {
  it("a 9 MB tool result line reads whole, streamed or not, and byte offsets stay exact", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("dump it"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_big", name: "bash", arguments: { command: "cat big" } }], "resp_big"));
    const big = "é0123456789abcdef\n".repeat(500_000);
    sm.appendMessage(toolResult("call_big", "bash", big));
    sm.appendMessage(user("thanks"));
    const file = fileOf(sm);
    const session = await readSession(file);
    expect(session.blocks.find((b) => b.anchor === "r:call_big")?.text).toBe(big);
    const bytes = readFileSync(file);
    expect(session.entries.at(-1)?.byteOffset).toBe(bytes.lastIndexOf(0x0a, bytes.length - 2) + 1);
    const streamed: unknown[] = [];
    for await (const item of streamEntries(file)) if (item.kind === "entry") streamed.push(item.entry);
    expect(streamed).toEqual(session.entries);
  });
});

/** `updateSessionSync` where a test awaits an update: it must read every append here (all are small). */
async function viaSync(session: Session): Promise<Session> {
  const next = updateSessionSync(session);
  if (next === undefined) throw new Error("updateSessionSync declined an append under its limit");
  return next;
}

/** Both ways of reading an append: the async stream and the synchronous read at the consumed offset. */
const UPDATES: [string, (session: Session) => Promise<Session>][] = [
  ["updateSession", updateSession],
  ["updateSessionSync", viaSync],
];

describe.each(UPDATES)("%s reads only what was appended", (_name, updateSession) => {
  it("equals a full read after every append, branches and compactions included", async () => {
    const sm = SessionManager.create("/project", tempDir());
    const first = sm.appendMessage(user("start"));
    sm.appendMessage(assistant([{ type: "text", text: "ok" }], "resp_0"));
    const file = fileOf(sm);
    let session = await readSession(file);
    for (let i = 0; i < 6; i++) {
      if (i === 3) sm.branch(first);
      sm.appendMessage(user(`q${String(i)}`));
      sm.appendMessage(assistant([{ type: "toolCall", id: `c${String(i)}`, name: "read", arguments: { path: "a" } }], `resp_${String(i + 1)}`));
      sm.appendMessage(toolResult(`c${String(i)}`, "read", `content ${String(i)}`));
      if (i === 4) sm.appendCompaction("sum", null, 10);
      const previousLength = session.byteLength;
      session = await updateSession(session);
      expect(session.byteLength).toBeGreaterThan(previousLength);
      expect(shape(session)).toEqual(shape(await readSession(file)));
    }
  });

  it("reads a turn's append with buffers the size of the append, and an append longer than them whole", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("start"));
    const file = fileOf(sm);
    let session = await readSession(file);
    // Every update used to take two 4 MB buffers, fresh external memory on each call of each turn.
    const sizes: number[] = [];
    const allocUnsafe = Buffer.allocUnsafe.bind(Buffer);
    const spy = vi.spyOn(Buffer, "allocUnsafe").mockImplementation((size: number) => {
      sizes.push(size);
      return allocUnsafe(size);
    });
    try {
      sm.appendMessage(toolResult("c1", "bash", "ok"));
      session = await updateSession(session);
      expect(Math.max(0, ...sizes)).toBeLessThanOrEqual(64 * 1024);
      // One line far longer than the update's buffer: read across its chunks, byte for byte.
      const long = Array.from({ length: 9000 }, (_, i) => `line ${String(i)} of a long output`).join("\n");
      sm.appendMessage(toolResult("c2", "bash", long));
      sm.appendMessage(user("next"));
      session = await updateSession(session);
    } finally {
      spy.mockRestore();
    }
    expect(session.blocks.find((b) => b.toolCallId === "c2")?.text).toBe(Array.from({ length: 9000 }, (_, i) => `line ${String(i)} of a long output`).join("\n"));
    expect(shape(session)).toEqual(shape(await readSession(file)));
  });

  it("returns the same session when nothing was appended", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("start"));
    const session = await readSession(fileOf(sm));
    expect(await updateSession(session)).toBe(session);
  });

  it("a partial append is picked up once completed", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("start"));
    const file = fileOf(sm);
    const line = `${JSON.stringify({ type: "custom", customType: "x", data: {}, id: "abcd0001", parentId: sm.getLeafId(), timestamp: "2026-01-01T00:00:00.000Z" })}\n`;
    appendFileSync(file, line.slice(0, 20));
    let session = await readSession(file);
    expect(session.damaged.map((d) => d.kind)).toEqual(["no-trailing-newline"]);
    appendFileSync(file, line.slice(20, -1));
    session = await updateSession(session);
    // Complete object, newline still missing: taken, reported.
    expect(session.leafId).toBe("abcd0001");
    appendFileSync(file, "\n");
    session = await updateSession(session);
    expect(session.damaged).toEqual([]);
    expect(shape(session)).toEqual(shape(await readSession(file)));
  });

  it("truncation, rewrite and replacement throw LEDGER_CHANGED", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("start"));
    sm.appendMessage(assistant([{ type: "text", text: "ok" }]));
    const file = fileOf(sm);
    const expectChanged = async (session: Session): Promise<void> => {
      await expect(updateSession(session)).rejects.toSatisfy((e: unknown) => e instanceof LedgerError && e.code === "LEDGER_CHANGED");
    };
    let session = await readSession(file);
    truncateSync(file, session.byteLength - 5);
    await expectChanged(session);

    const bytes = readFileSync(join(file));
    writeFileSync(file, bytes.toString("utf8").replace("start", "STart"));
    session = await readSession(file);
    writeFileSync(file, bytes.toString("utf8").replace("ok", "OK"));
    await expectChanged(session);

    session = await readSession(file);
    const other = join(tempDir(), "other.jsonl");
    writeFileSync(other, bytes);
    renameSync(other, file);
    await expectChanged(session);
  });
});

type Op =
  | { op: "user"; text: string }
  | { op: "tool"; text: string }
  | { op: "bash"; text: string }
  | { op: "branch"; back: number }
  | { op: "compact"; keep: boolean }
  | { op: "edit"; hide: boolean }
  | { op: "reset" }
  | { op: "summary"; back: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant("user" as const), text: fc.string({ maxLength: 40 }) }),
  fc.record({ op: fc.constant("tool" as const), text: fc.string({ unit: "grapheme", maxLength: 60 }) }),
  fc.record({ op: fc.constant("bash" as const), text: fc.string({ maxLength: 20 }) }),
  fc.record({ op: fc.constant("branch" as const), back: fc.nat(10) }),
  fc.record({ op: fc.constant("compact" as const), keep: fc.boolean() }),
  fc.record({ op: fc.constant("edit" as const), hide: fc.boolean() }),
  fc.record({ op: fc.constant("reset" as const) }),
  fc.record({ op: fc.constant("summary" as const), back: fc.nat(10) }),
);

function play(ops: Op[], dir: string, sm = SessionManager.create("/project", dir)): string {
  if (sm.getEntries().length === 0) sm.appendMessage(user("founding request"));
  let n = sm.getEntries().length * 1000;
  for (const step of ops) {
    const ids = sm.getEntries().map((e) => e.id);
    const pick = (back: number): string | undefined => ids[Math.max(0, ids.length - 1 - back)];
    switch (step.op) {
      case "user":
        sm.appendMessage(user(step.text));
        break;
      case "tool": {
        n += 1;
        sm.appendMessage(assistant([{ type: "toolCall", id: `call_${String(n)}`, name: "bash", arguments: { command: step.text } }], `resp_${String(n)}`));
        sm.appendMessage(toolResult(`call_${String(n)}`, "bash", step.text));
        break;
      }
      case "bash":
        sm.appendMessage(bashExecution("ls", step.text, step.text.length % 2));
        break;
      case "branch": {
        const id = pick(step.back);
        if (id !== undefined) sm.branch(id);
        break;
      }
      case "compact": {
        const branch = sm.getBranch();
        const kept = step.keep ? branch[Math.floor(branch.length / 2)]?.id ?? null : null;
        sm.appendCompaction("summary", kept, 100);
        break;
      }
      case "edit": {
        const target = sm.getBranch().find((e) => e.type === "message" && e.message.role === "toolResult");
        if (target !== undefined) sm.appendContextEdit(target.id, step.hide ? null : { content: "[folded]" });
        break;
      }
      case "reset":
        sm.resetLeaf();
        sm.appendMessage(user("new root"));
        break;
      case "summary": {
        const id = pick(step.back);
        if (id !== undefined) sm.branchWithSummary(id, "abandoned path");
        break;
      }
    }
  }
  return fileOf(sm);
}

describe("property: Pi appends, then a cut at any byte", () => {
  it("reads without throwing past the header and loses only the torn tail", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 14 }), fc.double({ min: 0, max: 1, noNaN: true }), async (ops, where) => {
        const dir = tempDir();
        const file = play(ops, dir);
        const full = await readSession(file);
        expectSameAsPi(full, SessionManager.open(file, dir));
        const bytes = readFileSync(file);
        const cut = Math.floor(where * bytes.length);
        const cutFile = join(dir, "cut.jsonl");
        writeFileSync(cutFile, bytes.subarray(0, cut));
        const headerEnd = bytes.indexOf(0x0a) + 1;
        if (cut < headerEnd) {
          // Not even a whole header line: a typed error (a JSON-complete header without newline reads).
          try {
            await readSession(cutFile);
          } catch (error) {
            expect(error).toBeInstanceOf(LedgerError);
          }
          return;
        }
        const partial = await readSession(cutFile);
        const whole = full.entries.filter((e) => e.byteOffset + e.byteLength < cut || (e.byteOffset + e.byteLength === cut));
        expect(partial.entries.map((e) => e.raw)).toEqual(whole.map((e) => e.raw));
        const tornTail = cut < bytes.length && bytes[cut - 1] !== 0x0a;
        expect(partial.damaged.every((d) => d.kind === "no-trailing-newline")).toBe(true);
        expect(partial.damaged.length).toBe(tornTail ? 1 : 0);
        expect(partial.blocks).toEqual(full.blocks.slice(0, partial.blocks.length));
      }),
      { numRuns: 60 },
    );
  });
});

describe.each(UPDATES)("property: incremental reads (%s) between random Pi appends equal a full read", (_name, updateSession) => {
  it("an update after every batch matches readSession of the whole file", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(opArb, { maxLength: 5 }), { minLength: 1, maxLength: 5 }), async (batches) => {
        const dir = tempDir();
        const sm = SessionManager.create("/project", dir);
        const file = play([], dir, sm);
        let session = await readSession(file);
        for (const batch of batches) {
          play(batch, dir, sm);
          session = await updateSession(session);
          expect(shape(session)).toEqual(shape(await readSession(file)));
        }
        expectSameAsPi(session, SessionManager.open(file, dir));
      }),
      { numRuns: 40 },
    );
  });
});


describe.each(UPDATES)("property: %s of appends that land in two writes (a torn line between)", (_name, update) => {
  it("after each write the update equals a full read of the file as it is", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(fc.array(opArb, { minLength: 1, maxLength: 4 }), fc.double({ min: 0, max: 1, noNaN: true })), { minLength: 1, maxLength: 4 }), async (batches) => {
        const dir = tempDir();
        const sm = SessionManager.create("/project", dir);
        const source = play([], dir, sm);
        // A copy that receives Pi's appended bytes in two writes, cut at any byte (a writer caught mid-line).
        const file = join(tempDir(), "mirror.jsonl");
        let copied = readFileSync(source).length;
        writeFileSync(file, readFileSync(source));
        let session = await readSession(file);
        for (const [batch, where] of batches) {
          play(batch, dir, sm);
          const bytes = readFileSync(source);
          const cut = copied + Math.floor(where * (bytes.length - copied));
          appendFileSync(file, bytes.subarray(copied, cut));
          session = await update(session);
          expect(shape(session)).toEqual(shape(await readSession(file)));
          appendFileSync(file, bytes.subarray(cut));
          copied = bytes.length;
          session = await update(session);
          expect(shape(session)).toEqual(shape(await readSession(file)));
        }
        expectSameAsPi(session, SessionManager.open(file, dir));
      }),
      { numRuns: 30 },
    );
  });
});

describe("updateSessionSync leaves a large append to updateSession", () => {
  it("declines past its limit without reading, and the async update then reads it", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("start"));
    const file = fileOf(sm);
    const first = await readSession(file);
    sm.appendMessage(toolResult("c1", "bash", "x".repeat(4096)));
    expect(updateSessionSync(first, 1024)).toBeUndefined();
    const next = await updateSession(first);
    expect(shape(next)).toEqual(shape(await readSession(file)));
  });
});
