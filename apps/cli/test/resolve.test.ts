// `context-fold resolve` on a session written by Pi's SessionManager: text, sha256 verification,
// :edit: replacements, and exit codes for missing, ambiguous and mismatching anchors.
import { createHash } from "node:crypto";
import { SessionManager } from "@earendil-works/pi-coding-agent";
import type { AgentMessage } from "@earendil-works/pi-agent-core";
import { tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

const sha = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");
const usage = { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
const user = (text: string): AgentMessage => ({ role: "user", content: text, timestamp: 1 }) as AgentMessage;
const call = (id: string, responseId: string): AgentMessage =>
  ({
    role: "assistant",
    content: [
      { type: "text", text: "running it" },
      { type: "toolCall", id, name: "bash", arguments: { command: "ls" } },
    ],
    api: "anthropic-messages",
    provider: "anthropic",
    model: "m",
    usage,
    stopReason: "toolUse",
    responseId,
    timestamp: 2,
  }) as unknown as AgentMessage;
const result = (id: string, text: string): AgentMessage =>
  ({ role: "toolResult", toolCallId: id, toolName: "bash", content: [{ type: "text", text: text.slice(0, 3) }, { type: "text", text: text.slice(3) }], isError: false, timestamp: 3 }) as unknown as AgentMessage;

describe("context-fold resolve", () => {
  const sm = SessionManager.create("/project", tempDir("cli-resolve-"));
  const root = sm.appendMessage(user("list files"));
  sm.appendMessage(call("call_1", "resp_1"));
  const r1 = sm.appendMessage(result("call_1", "a.txt\nb.txt"));
  const edit = sm.appendContextEdit(r1, { content: "[folded: 2 files]" });
  // The same toolCallId on a second branch makes r:call_dup ambiguous.
  sm.appendMessage(call("call_dup", "resp_2"));
  sm.appendMessage(result("call_dup", "first"));
  sm.branch(root);
  sm.appendMessage(call("call_dup", "resp_3"));
  sm.appendMessage(result("call_dup", "second"));
  const file = sm.getSessionFile() ?? "";

  it("prints the text byte for byte; --sha256 verifies", async () => {
    // Two text parts joined by "\n" (contract-decisions.md), nothing added.
    const text = "a.t\nxt\nb.txt";
    const plain = await cli(["resolve", file, "r:call_1"]);
    expect(plain).toEqual({ stdout: text, stderr: "", exit: 0 });
    const ok = await cli(["resolve", file, "r:call_1", "--sha256", sha(text), "--json"]);
    expect(ok.exit).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ anchor: "r:call_1", text, sha256: sha(text), verified: true });
  });

  it("a hash mismatch exits 1 with verified false", async () => {
    const bad = await cli(["resolve", file, "r:call_1", "--sha256", sha("other"), "--json"]);
    expect(bad.exit).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ verified: false, sha256: sha("a.t\nxt\nb.txt") });
    expect(bad.stderr).toContain("sha256 mismatch");
  });

  it(":edit:<id> resolves to the replacement; assistant text parts by responseId", async () => {
    const edited = await cli(["resolve", file, `r:call_1:edit:${edit}`, "--json"]);
    // Nothing recorded a hash for this anchor (no seed index, no block table): not verified, against none.
    expect(JSON.parse(edited.stdout)).toMatchObject({ text: "[folded: 2 files]", verified: false, verifiedAgainst: "none", editId: edit });
    const part = await cli(["resolve", file, "a:resp_1:p0"]);
    expect(part).toMatchObject({ stdout: "running it", exit: 0 });
  });

  it("missing and ambiguous anchors exit 1; malformed ones and bad --sha256 exit 2", async () => {
    const missing = await cli(["resolve", file, "r:nope", "--json"]);
    expect(missing.exit).toBe(1);
    expect(JSON.parse(missing.stdout)).toMatchObject({ anchor: "r:nope", status: "missing", text: null, verified: false });
    const toolCall = await cli(["resolve", file, "a:resp_1:p1"]);
    expect(toolCall.exit).toBe(1);
    const ambiguous = await cli(["resolve", file, "r:call_dup", "--json"]);
    expect(ambiguous.exit).toBe(1);
    expect((JSON.parse(ambiguous.stdout) as { candidates: unknown[] }).candidates).toHaveLength(2);
    expect((await cli(["resolve", file, "x:y"])).exit).toBe(2);
    expect((await cli(["resolve", file, "r:call_1", "--sha256", "abc"])).exit).toBe(2);
  });
});
