// Damaged files: our Pi view (branch, leaf, compactions, context) equals what Pi's own SessionManager
// builds from a temporary copy, while the recovered view keeps everything readable that Pi drops.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { createHash } from "node:crypto";
import { damageEffects, LedgerError, readSession, recoveredLineage, type Session } from "@context-fold/ledger-reader";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { expectSameAsPi, openWithPi } from "./pi-oracle.js";
import { assistant, toolResult, user } from "./pi-messages.js";

/** Every text the session's lines hold intact (JSON-encoded in the file): what recall must still reach. */
function readableTexts(file: string): string[] {
  const bytes = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const line of bytes.split("\n")) {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      continue;
    }
    const message = (value as { message?: { content?: unknown } }).message;
    const content = message?.content;
    if (typeof content === "string") out.push(content);
    else if (Array.isArray(content)) for (const part of content as { text?: unknown }[]) if (typeof part.text === "string") out.push(part.text);
  }
  return out;
}

/**
 * The texts recall's default scope searches: the blocks of the recovered view of the active branch
 * (the sessions here have one branch, so that is every block) and every salvaged line.
 */
function searchable(session: Session): string {
  const blocks = session.blocks.filter((b) => session.recoveredLineageIds.has(b.entryId));
  return [...blocks.map((b) => b.text), ...session.damaged.map((d) => d.salvage?.text ?? "")].join("\n\u0000\n");
}

/** A clean v3 session written by Pi: two turns, a tool call, a compaction that keeps the second turn, a third turn. */
function cleanSession(dir: string): { file: string; lines: string[] } {
  const sm = SessionManager.create("/project", dir);
  sm.appendMessage(user("founding request: build the parser"));
  sm.appendMessage(assistant([{ type: "text", text: "plan alpha" }], "resp_1"));
  const second = sm.appendMessage(user("second turn: use streaming"));
  sm.appendMessage(assistant([{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls" } }], "resp_2"));
  sm.appendMessage(toolResult("call_1", "bash", "listing beta"));
  sm.appendCompaction("summary of turn one", second, 1234);
  sm.appendMessage(user("third turn: add tests"));
  sm.appendMessage(assistant([{ type: "text", text: "answer gamma" }], "resp_3"));
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return { file, lines: readFileSync(file, "utf8").split("\n").filter((l) => l !== "") };
}

/** Write damaged lines to a file, compare with Pi, and check nothing intact is lost. */
async function checkAgainstPi(dir: string, name: string, text: string): Promise<Session> {
  const file = join(dir, name);
  writeFileSync(file, text);
  const session = await readSession(file);
  expectSameAsPi(session, openWithPi(file, dir));
  const all = searchable(session);
  for (const t of readableTexts(file)) expect(all).toContain(t);
  return session;
}

const glue = (lines: string[], at: number): string[] => [...lines.slice(0, at), `${lines[at] ?? ""}${lines[at + 1] ?? ""}`, ...lines.slice(at + 2)];
const joinLines = (lines: string[]): string => `${lines.join("\n")}\n`;

describe("generated damage: the Pi view equals Pi's, the recovered view loses nothing", () => {
  it("a torn line at the end: Pi's leaf is the entry before it; the glued objects stay searchable", async () => {
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const damaged = glue(lines, lines.length - 2);
    const session = await checkAgainstPi(dir, "torn-end.jsonl", joinLines(damaged));
    expect(session.entries.filter((e) => e.recovered).map((e) => e.type)).toEqual(["message", "message"]);
    expect(session.leafId).toBe(session.entries.filter((e) => !e.recovered).at(-1)?.id);
    expect(searchable(session)).toContain("answer gamma");
    expect(session.recoveredLineageIds.size).toBeGreaterThan(session.lineageIds.size);
  });

  it("a torn line in the middle: Pi's branch stops at the entry after it (an orphan root)", async () => {
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const session = await checkAgainstPi(dir, "torn-middle.jsonl", joinLines(glue(lines, 2)));
    const orphan = session.lineage[0];
    expect(orphan?.parentId).not.toBeNull();
    expect(session.byId.get(orphan?.parentId ?? "")?.recovered).toBe(true);
    expect(session.roots).toContain(orphan?.id);
    // The recovered view walks through the torn line back to the founding request.
    expect(recoveredLineage(session)[0]?.raw["message"]).toMatchObject({ content: "founding request: build the parser" });
  });

  it("a glued compaction: Pi has no compaction, so neither does our Pi view", async () => {
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const at = lines.findIndex((l) => l.includes('"type":"compaction"'));
    const session = await checkAgainstPi(dir, "glued-compaction.jsonl", joinLines(glue(lines, at - 1)));
    expect(session.compactions).toEqual([]);
    expect(session.entries.some((e) => e.type === "compaction" && e.recovered)).toBe(true);
  });

  it("a glued compaction on the last line (the real v1 case): Pi's context keeps every message", async () => {
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const withoutCompaction = lines.filter((l) => !l.includes('"type":"compaction"'));
    const compaction = lines.find((l) => l.includes('"type":"compaction"')) ?? "";
    const damaged = [...withoutCompaction.slice(0, -1), `${withoutCompaction.at(-1) ?? ""}${compaction}`];
    const session = await checkAgainstPi(dir, "glued-last-compaction.jsonl", joinLines(damaged));
    expect(session.compactions).toEqual([]);
  });

  it("a broken escape (the real masking damage): Pi drops the line; its id, parentId and text are salvaged", async () => {
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const target = lines[3] ?? "";
    const broken = target.replace("second turn: use streaming", "second turn: mail me at \\***@***.*** then use streaming");
    const damaged = [...lines.slice(0, 3), broken, ...lines.slice(4)];
    const session = await checkAgainstPi(dir, "broken-escape.jsonl", joinLines(damaged));
    const [d] = session.damaged;
    const original = JSON.parse(target) as { id: string; parentId: string };
    expect(d).toMatchObject({ line: 4, kind: "malformed", salvage: { type: "message", id: original.id, parentId: original.parentId, role: "user" } });
    expect(d?.salvage?.text).toBe("second turn: mail me at ***@***.*** then use streaming");
    // The entry after it is an orphan in Pi's view; the recovered view bridges the line.
    expect(session.roots).toHaveLength(2);
    expect(session.recoveredLineageIds.has(session.entries[0]?.id ?? "")).toBe(true);
    expect(session.lineageIds.has(session.entries[0]?.id ?? "")).toBe(false);
  });

  it("a truncated last line: not consumed, Pi drops it too; its readable text is salvaged", async () => {
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const last = lines.at(-1) ?? "";
    const cut = last.slice(0, last.indexOf("answer gamma") + "answer".length);
    const session = await checkAgainstPi(dir, "truncated.jsonl", `${lines.slice(0, -1).join("\n")}\n${cut}`);
    expect(session.damaged.at(-1)).toMatchObject({ kind: "no-trailing-newline", salvage: { text: "answer" } });
  });

  it("an entry lost whole, then glued into the next line: the recovered view crosses to the founding request", async () => {
    // Found by the property below (seed 1689512521): the assistant line after the founding request is
    // cut to "{" and glued to the next two lines. The first glued object's parent is nowhere readable,
    // and the break is the recovered object's own line.
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const body = lines.slice(1);
    const cut = [body[0] ?? "", `{${body[2] ?? ""}${body[3] ?? ""}`, ...body.slice(4)];
    const session = await checkAgainstPi(dir, "lost-whole.jsonl", `${lines[0] ?? ""}\n${cut.join("\n")}\n`);
    expect(recoveredLineage(session)[0]?.raw["message"]).toMatchObject({ content: "founding request: build the parser" });
    expect(searchable(session)).toContain("founding request: build the parser");
  });

  it("a line removed whole, no damage left: the orphan crosses to the entry before it", async () => {
    // Found by the property below: a line cut to "{", glued to the line before, and that line cut back
    // to its own bytes leaves a clean file with one line missing. Pi starts a second root there.
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const session = await checkAgainstPi(dir, "removed.jsonl", joinLines([...lines.slice(0, 4), ...lines.slice(5)]));
    expect(session.damaged).toEqual([]);
    expect(session.roots).toHaveLength(2);
    expect(recoveredLineage(session).map((e) => e.id)).toEqual(session.entries.map((e) => e.id));
    expect(session.recoveredLineageIds.size).toBe(session.entries.length);
  });

  it("v1: a torn line in the middle leaves Pi's chain running past it; compare by position and content", async () => {
    const dir = tempDir();
    const header = JSON.stringify({ type: "session", id: "v1-session", timestamp: "2025-01-01T00:00:00.000Z", cwd: "/p" });
    const msg = (role: string, text: string): string =>
      JSON.stringify({ type: "message", timestamp: "2025-01-01T00:00:01.000Z", message: role === "user" ? { role, content: text, timestamp: 1 } : { role, content: [{ type: "text", text }], timestamp: 1 } });
    const compaction = JSON.stringify({ type: "compaction", timestamp: "2025-01-01T00:00:02.000Z", summary: "early work", firstKeptEntryIndex: 5, tokensBefore: 900 });
    const lines = [header, msg("user", "v1 one"), msg("assistant", "v1 two"), msg("user", "v1 three"), msg("assistant", "v1 four"), msg("user", "v1 five"), compaction, msg("assistant", "v1 six"), msg("user", "v1 seven")];
    const torn = await checkAgainstPi(dir, "v1-torn.jsonl", joinLines(glue(lines, 2)));
    expect(torn.entries.filter((e) => e.recovered)).toHaveLength(2);
    const lastGlued = await checkAgainstPi(dir, "v1-glued-compaction.jsonl", joinLines([...lines.slice(0, 5), `${lines[5] ?? ""}${compaction}`, ...lines.slice(7)]));
    expect(lastGlued.compactions).toEqual([]);
  });
});

describe("damageEffects: what each damaged line does to the Pi view", () => {
  it("a glued compaction is a lost compaction; a torn middle line orphans the next entry and cuts Pi's branch short", async () => {
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const at = lines.findIndex((l) => l.includes('"type":"compaction"'));
    const glued = await checkAgainstPi(dir, "effects-compaction.jsonl", joinLines(glue(lines, at - 1)));
    const kinds = damageEffects(glued).flatMap((e) => e.consequences.map((c) => c.kind));
    expect(kinds).toContain("lost-compaction");
    expect(kinds).toContain("orphaned-entry");
    const end = await checkAgainstPi(dir, "effects-end.jsonl", joinLines(glue(lines, lines.length - 2)));
    expect(damageEffects(end).map((e) => e.consequences)).toEqual([[{ kind: "dropped-by-pi", entries: 2, piLeaf: end.leafId }]]);
  });
});

describe("fragments: read on request only", () => {
  it("a headerless file throws NO_HEADER; with fragment: true it reads under fragment-<sha256 prefix>", async () => {
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    const file = join(dir, "fragment.jsonl");
    writeFileSync(file, joinLines(lines.slice(3)));
    const error = await readSession(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LedgerError);
    expect((error as LedgerError).code).toBe("NO_HEADER");
    const session = await readSession(file, { fragment: true });
    expect(session.header).toMatchObject({ id: `fragment-${createHash("sha256").update(readFileSync(file)).digest("hex").slice(0, 12)}`, version: 3, fragment: true });
    expect(session.entries.map((e) => e.id)).toEqual(lines.slice(3).map((l) => (JSON.parse(l) as { id: string }).id));
    // A file that has its header reads the same with or without the flag.
    const whole = join(dir, "whole.jsonl");
    writeFileSync(whole, joinLines(lines));
    expect((await readSession(whole, { fragment: true })).header.fragment).toBeUndefined();
  });
});

describeShared("damaged fixtures: the Pi view equals Pi's", () => {
  it("pinion05 01 (no header): read as a fragment; line 60 is malformed and salvaged", async () => {
    const session = await readSession(sharedFixture("real", "pinion05-act-3ae80f5__01-youtube-noheader.jsonl"), { fragment: true });
    expect(session.header.id).toMatch(/^fragment-[0-9a-f]{12}$/);
    const d = session.damaged.find((x) => x.line === 60);
    expect(d?.kind).toBe("malformed");
    expect(d?.salvage?.text.length).toBeGreaterThan(0);
  });

  it("pi-mono-history (v1, a torn line): Pi's branch, compaction and context", async () => {
    const dir = tempDir();
    const file = sharedFixture("sessions", "pi-mono-history__session.jsonl");
    const session = await readSession(file);
    expectSameAsPi(session, openWithPi(file, dir));
    expect(session.entries.filter((e) => e.recovered).every((e) => session.recoveredLineageIds.has(e.id))).toBe(true);
  });

  it("pinion05 03 (v3, malformed line 31): Pi's branch starts at line 32; line 31 is salvaged and bridged", async () => {
    const dir = tempDir();
    const file = sharedFixture("real", "pinion05-act-3ae80f5__03-raddit-dashboard-pr.jsonl");
    const session = await readSession(file);
    expectSameAsPi(session, openWithPi(file, dir));
    const d = session.damaged.find((x) => x.line === 31);
    expect(d?.kind).toBe("malformed");
    expect(d?.salvage?.id).toMatch(/^[0-9a-f]{8}$/);
    expect(d?.salvage?.text).toContain("***@***.***");
    const orphan = session.entries.find((e) => e.line === 32);
    expect(orphan?.parentId).toBe(d?.salvage?.id);
    expect(session.lineage[0]?.id).toBe(orphan?.id);
    expect(recoveredLineage(session)[0]?.line).toBe(2);
  });
});

describe("property: random glue/truncate damage of a Pi-written session", () => {
  const damageArb = fc.array(
    fc.oneof(
      fc.record({ op: fc.constant("glue" as const), at: fc.nat() }),
      fc.record({ op: fc.constant("truncate" as const), at: fc.nat(), keep: fc.double({ min: 0, max: 1, noNaN: true }) }),
      fc.record({ op: fc.constant("cut-end" as const), keep: fc.double({ min: 0, max: 1, noNaN: true }) }),
    ),
    { minLength: 1, maxLength: 3 },
  );

  it("the Pi view matches Pi and every intact text stays searchable", async () => {
    const dir = tempDir();
    const { lines } = cleanSession(dir);
    let run = 0;
    await fc.assert(
      fc.asyncProperty(damageArb, async (ops) => {
        // Line 0 is the header: damage only what follows it.
        let body = lines.slice(1);
        let tail = "";
        for (const op of ops) {
          if (body.length < 2) break;
          if (op.op === "glue") body = glue(body, op.at % (body.length - 1));
          else if (op.op === "truncate") {
            const i = op.at % body.length;
            const line = body[i] ?? "";
            body = [...body.slice(0, i), line.slice(0, Math.max(1, Math.floor(op.keep * line.length))), ...body.slice(i + 1)];
          } else {
            const last = body.at(-1) ?? "";
            body = body.slice(0, -1);
            tail = last.slice(0, Math.floor(op.keep * last.length));
          }
        }
        run += 1;
        await checkAgainstPi(dir, `prop-${String(run)}.jsonl`, `${lines[0] ?? ""}\n${body.join("\n")}\n${tail}`);
      }),
      { numRuns: 60 },
    );
  });
});
