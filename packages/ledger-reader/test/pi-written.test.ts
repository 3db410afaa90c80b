// Sessions written here by Pi's own SessionManager (branches, branch summaries, context edits, compactions
// incl. retain-none, resetLeaf roots, unknown entry types): our reading equals Pi's.
import { appendFileSync, readFileSync, statSync } from "node:fs";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";
import { blocksOfEntry, contextRoles, contextView, isOnLineage, lineageBlocks, readSession, resolveAnchor, type Session, streamEntries } from "@context-fold/ledger-reader";
import { sha256Hex } from "@context-fold/seed-index-format";
import { describe, expect, it } from "vitest";
import { expectSameAsPi } from "./pi-oracle.js";
import { assistant, toolResult, user } from "./pi-messages.js";

function reopen(sm: SessionManager): SessionManager {
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return SessionManager.open(file, tempDir());
}

function fileOf(sm: SessionManager): string {
  const file = sm.getSessionFile();
  if (file === undefined) throw new Error("Pi wrote no file");
  return file;
}

/** `contextRoles` walks the context without making its messages: the same positions and roles as `contextView`'s items. */
function expectRolesOfView(session: Session): void {
  const view = contextView(session);
  const roles = contextRoles(session);
  expect({ positions: [...roles.positions], roles: roles.roles }).toEqual({ positions: view.map((item) => item.entry.position), roles: view.map((item) => item.role) });
}

describe("sessions written by Pi's SessionManager", () => {
  it("branches: the active lineage follows the last entry in file order", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("first question"));
    const a1 = sm.appendMessage(assistant([{ type: "text", text: "first answer" }], "resp_1"));
    sm.appendMessage(user("follow-up A"));
    sm.appendMessage(assistant([{ type: "text", text: "answer A" }], "resp_2"));
    sm.branch(a1);
    sm.appendMessage(user("follow-up B"));
    const b = sm.appendMessage(assistant([{ type: "text", text: "answer B" }], "resp_3"));
    const session = await readSession(fileOf(sm));
    expect(session.branchPoints).toEqual([a1]);
    expect(session.leafId).toBe(b);
    expect(session.lineage.map((e) => e.id)).toEqual(sm.getBranch().map((e) => e.id));
    // Turn continues the fork point's numbering.
    expect(session.blocks.filter((x) => x.kind === "user").map((x) => [x.text, x.turn])).toEqual([
      ["first question", 1],
      ["follow-up A", 2],
      ["follow-up B", 2],
    ]);
    expect(session.lineageIds.has(session.blocks[2]?.entryId ?? "")).toBe(false);
    expect(session.blocks.filter((x) => isOnLineage(session, x)).map((x) => x.text)).toEqual(["first question", "first answer", "follow-up B", "answer B"]);
    expect(lineageBlocks(session).map((x) => x.index)).toEqual(session.blocks.filter((x) => isOnLineage(session, x)).map((x) => x.index));
    const a1Entry = session.byId.get(a1);
    expect(a1Entry === undefined ? [] : blocksOfEntry(session, a1Entry).map((x) => x.text)).toEqual(["first answer"]);
    expectSameAsPi(session, reopen(sm));
  });

  it("a fork with four children is one branch point, and streaming numbers turns as the full read does", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("root question"));
    const fork = sm.appendMessage(assistant([{ type: "text", text: "root answer" }], "resp_root"));
    sm.appendMessage(user("second question"));
    sm.appendMessage(assistant([{ type: "text", text: "second answer" }], "resp_second"));
    for (const tag of ["B", "C", "D"]) {
      sm.branch(fork);
      sm.appendMessage(user(`try ${tag}`));
      sm.appendMessage(assistant([{ type: "text", text: `answer ${tag}` }], `resp_${tag}`));
    }
    // A second fork later on the last branch: the first fork's count must not leak into it.
    const last = sm.getLeafId() ?? "";
    sm.appendMessage(user("on D, one more"));
    sm.branch(last);
    sm.appendMessage(user("on D, the other"));
    const session = await readSession(fileOf(sm));
    expect(session.branchPoints).toEqual([fork, last]);
    const turns = session.blocks.filter((x) => x.kind === "user").map((x) => [x.text, x.turn]);
    expect(turns).toEqual([
      ["root question", 1],
      ["second question", 2],
      ["try B", 2],
      ["try C", 2],
      ["try D", 2],
      ["on D, one more", 3],
      ["on D, the other", 3],
    ]);
    const streamed: [string, number][] = [];
    for await (const item of streamEntries(fileOf(sm))) {
      if (item.kind === "entry") for (const b of item.blocks) if (b.kind === "user") streamed.push([b.text, b.turn]);
    }
    expect(streamed).toEqual(turns);
    expectSameAsPi(session, reopen(sm));
  });

  it("branchWithSummary and resetLeaf: summaries and extra roots", async () => {
    const sm = SessionManager.create("/project", tempDir());
    const u1 = sm.appendMessage(user("hello"));
    sm.appendMessage(assistant([{ type: "text", text: "hi" }]));
    sm.branchWithSummary(u1, "Tried greeting twice; abandoned.");
    sm.appendMessage(assistant([{ type: "text", text: "hi again" }]));
    sm.resetLeaf();
    const root2 = sm.appendMessage(user("start over"));
    sm.branchWithSummary(null, "Everything before was abandoned.");
    const last = sm.appendMessage(user("third root path"));
    const session = await readSession(fileOf(sm));
    expect(session.roots).toHaveLength(3);
    expect(session.roots).toContain(root2);
    expect(session.leafId).toBe(last);
    expect(session.blocks.filter((b) => b.kind === "branchSummary").map((b) => b.text)).toEqual([
      "Tried greeting twice; abandoned.",
      "Everything before was abandoned.",
    ]);
    expectSameAsPi(session, reopen(sm));
    expectRolesOfView(session);
  });

  it("context_edit: latest per target wins, null hides, :edit: anchors resolve to the replacement", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("run ls"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_1", name: "bash", arguments: { command: "ls" } }], "resp_a"));
    const r1 = sm.appendMessage(toolResult("call_1", "bash", "a.txt\nb.txt\n".repeat(50)));
    const a2 = sm.appendMessage(assistant([{ type: "thinking", thinking: "long thought" }, { type: "text", text: "done" }], "resp_b"));
    sm.appendContextEdit(r1, { content: "[folded]" });
    const e2 = sm.appendContextEdit(r1, { content: "[folded again]" });
    sm.appendContextEdit(a2, null);
    // A custom message (role "custom") and a custom entry (no message) among them.
    sm.appendCustomMessageEntry("note", "a note for the model", true);
    sm.appendCustomEntry("state", { step: 2 });
    sm.appendMessage(user("next"));
    const session = await readSession(fileOf(sm));
    expectSameAsPi(session, reopen(sm));
    expectRolesOfView(session);
    const view = contextView(session);
    const edited = view.find((item) => item.entry.id === r1);
    expect(edited?.editId).toBe(e2);
    expect(edited?.message["content"]).toEqual([{ type: "text", text: "[folded again]" }]);
    expect(view.some((item) => item.entry.id === a2)).toBe(false);
    const original = resolveAnchor(session, "r:call_1");
    expect(original).toMatchObject({ status: "ok", text: "a.txt\nb.txt\n".repeat(50), verified: null });
    const folded = resolveAnchor(session, `r:call_1:edit:${e2}`, sha256Hex("[folded again]"));
    expect(folded).toMatchObject({ status: "ok", text: "[folded again]", verified: true, editId: e2 });
    expect(resolveAnchor(session, "a:resp_b:p0")).toMatchObject({ status: "ok", text: "long thought" });
    expect(resolveAnchor(session, "a:resp_b:p1", "0".repeat(64))).toMatchObject({ status: "ok", text: "done", verified: false });
    expect(resolveAnchor(session, "a:resp_a:p0")).toMatchObject({ status: "missing" });
    expect(resolveAnchor(session, "r:nope")).toMatchObject({ status: "missing" });
    expect(resolveAnchor(session, "q:what")).toMatchObject({ status: "malformed" });
  });

  it("compactions incl. retain-none: segments and the context view", async () => {
    const sm = SessionManager.create("/project", tempDir());
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(sm.appendMessage(user(`question ${String(i)}`)));
      ids.push(sm.appendMessage(assistant([{ type: "text", text: `answer ${String(i)}` }], `resp_${String(i)}`)));
    }
    const c1 = sm.appendCompaction("Summary one.", ids[4] ?? null, 1000);
    sm.appendMessage(user("after one"));
    const c2 = sm.appendCompaction("Summary two, retain none.", null, 2000);
    sm.appendMessage(user("after two"));
    sm.appendMessage(assistant([{ type: "text", text: "fine" }], "resp_z"));
    const session = await readSession(fileOf(sm));
    expectSameAsPi(session, reopen(sm));
    expect(session.compactions.map((c) => [c.number, c.entryId, c.firstKeptEntryId])).toEqual([
      [1, c1, ids[4]],
      [2, c2, c2],
    ]);
    const [one, two] = session.compactions;
    expect(one?.entryIds).toEqual(ids.slice(0, 4));
    expect(one?.segment).toEqual({ from: 0, to: 3 });
    // Segment 2 starts at compaction 1's kept boundary and runs up to compaction 2 itself.
    expect(two?.entryIds[0]).toBe(ids[4]);
    expect(two?.entryIds.at(-1)).toBe(session.lineage.find((e) => e.raw["message"] !== undefined && (e.raw["message"] as { content?: unknown }).content === "after one")?.id);
    expect(two?.segment?.from).toBe(4);
    expectRolesOfView(session);
    const view = contextView(session);
    expect(view[0]?.role).toBe("compactionSummary");
    expect(view.map((i) => i.role)).toEqual(["compactionSummary", "user", "assistant"]);
  });

  it("unknown entry types written to the file stay in the tree; Pi agrees", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("q"));
    const a = sm.appendMessage(assistant([{ type: "text", text: "a" }]));
    const file = fileOf(sm);
    appendFileSync(file, `${JSON.stringify({ type: "hologram", id: "abcdef01", parentId: a, timestamp: "2026-01-01T00:00:00.000Z", beam: 1 })}\n`);
    const session = await readSession(file);
    expect(session.leafId).toBe("abcdef01");
    expect(session.byId.get("abcdef01")?.type).toBe("hologram");
    const pi = SessionManager.open(file, tempDir());
    expect(pi.getLeafId()).toBe("abcdef01");
    expectSameAsPi(session, pi);
  });

  it("reading never changes the file's bytes or mtime", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("q"));
    sm.appendMessage(assistant([{ type: "text", text: "a" }]));
    const file = fileOf(sm);
    const before = statSync(file);
    const bytes = readFileSync(file);
    await readSession(file);
    await readSession(file, { withText: false });
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtimeMs);
  });
});
