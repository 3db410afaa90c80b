// The one Pi message → block conversion: the messages Pi sends the model (buildSessionContext) convert
// to exactly the blocks the reader finds in the file Pi wrote, and ids that make no anchor leave the
// block unanchored instead of failing.
import { SessionManager } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";
import { assistantPartAnchor, assistantView, blocksOfMessage, lineageBlocks, readSession, textPartsLength, toolResultView } from "@context-fold/ledger-reader";
import { joinTextParts } from "@context-fold/seed-index-format";
import { describe, expect, it } from "vitest";
import { assistant, bashExecution, toolResult, user } from "./pi-messages.js";

const FIELDS = ["kind", "role", "text", "partIndex", "anchor", "toolName", "toolCallId", "args", "isError", "exitCode", "fullOutputPath"] as const;

function pick(block: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of FIELDS) if ((block as Record<string, unknown>)[key] !== undefined) out[key] = (block as Record<string, unknown>)[key];
  return out;
}

describe("blocksOfMessage", () => {
  it("Pi's live context messages convert to the blocks read from the file Pi wrote", async () => {
    const sm = SessionManager.create("/project", tempDir());
    sm.appendMessage(user("run the build"));
    sm.appendMessage(
      assistant(
        [
          { type: "thinking", thinking: "the build script is in the root" },
          { type: "text", text: "running it" },
          { type: "toolCall", id: "call_1", name: "bash", arguments: { command: "npm run build" } },
        ],
        "resp_1",
      ),
    );
    sm.appendMessage(toolResult("call_1", "bash", "line one\nline two", { fullOutputPath: "/tmp/out.log" }));
    sm.appendMessage(bashExecution("git status", "clean", 1));
    sm.appendMessage(assistant([{ type: "text", text: "no responseId here" }]));
    const file = sm.getSessionFile();
    if (file === undefined) throw new Error("Pi wrote no file");
    const session = await readSession(file);
    const live = sm.buildSessionContext().messages.flatMap((message) => blocksOfMessage(message) ?? []);
    expect(live.map(pick)).toEqual(lineageBlocks(session).map(pick));
    expect(live.filter((b) => b.anchor !== undefined).map((b) => b.anchor)).toEqual(["a:resp_1:p0", "a:resp_1:p1", "r:call_1"]);
  });

  it("ids that make no anchor leave the block unanchored; unknown roles are not converted", () => {
    // A toolCallId ending in ":edit:<entry id>" would read back as an edit anchor: formatAnchor refuses it.
    const odd = { role: "toolResult", toolCallId: "call:edit:0123abcd", toolName: "bash", content: [{ type: "text", text: "out" }] };
    expect(blocksOfMessage(odd)).toEqual([{ kind: "toolResult", role: "toolResult", text: "out", toolCallId: "call:edit:0123abcd", toolName: "bash" }]);
    expect(toolResultView(odd)?.anchor).toBeUndefined();
    const empty = { role: "toolResult", toolCallId: "", content: "x" };
    expect(blocksOfMessage(empty)?.[0]?.anchor).toBeUndefined();
    const view = assistantView({ role: "assistant", responseId: "", content: [{ type: "thinking", thinking: "t" }] });
    expect(view === undefined ? "none" : assistantPartAnchor(view, 0)).toBeUndefined();
    expect(blocksOfMessage({ role: "someExtensionKind", content: "x" })).toBeUndefined();
    expect(blocksOfMessage({ role: "user", content: [{ type: "text", text: "see" }, { type: "image", data: "AAAA", mimeType: "image/png" }] })).toEqual([
      { kind: "user", role: "user", text: "see", images: 1 },
    ]);
  });

  it("textPartsLength is the length of the joined text without joining it", () => {
    for (const content of ["abc", [], [{ type: "text", text: "a" }], [{ type: "text", text: "ab" }, { type: "image" }, { type: "text", text: "cde" }], 7]) {
      expect(textPartsLength(content)).toBe(joinTextParts(content).length);
    }
  });
});
