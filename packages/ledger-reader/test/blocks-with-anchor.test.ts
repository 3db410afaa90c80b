// blocksWithAnchor on a session read from a file: the read's builder indexed every block's anchor, so
// an anchor no block carries is answered from that index, never by scanning every block (a caller
// asking whether a snapshot already holds a newly appended anchor misses often, and on a 100 MB
// session a scan per miss costs milliseconds).
import { tempDir } from "@context-fold/test-support";
import { blocksWithAnchor, readSession, updateSession } from "@context-fold/ledger-reader";
import { describe, expect, it } from "vitest";
import { assistant, lsSession, toolResult } from "./pi-messages.js";

/** Make any scan of the session's blocks fail the test. */
function forbidScans(blocks: readonly unknown[]): void {
  for (const name of ["filter", "find", "findIndex", "forEach", "some", "every", "map"] as const) {
    Object.defineProperty(blocks, name, {
      configurable: true,
      value: () => {
        throw new Error(`the blocks were scanned (${name})`);
      },
    });
  }
}

describe("blocksWithAnchor", () => {
  it("finds an anchor from the read's index and answers a miss without scanning the blocks", async () => {
    const { sm, file } = lsSession(tempDir());
    const session = await readSession(file);
    const anchored = session.blocks.filter((block) => block.anchor !== undefined);
    const anchor = anchored[0]?.anchor;
    if (anchor === undefined) throw new Error("no anchored block");
    forbidScans(session.blocks);
    expect(blocksWithAnchor(session, anchor).map((block) => block.index)).toEqual([anchored[0]?.index]);
    expect(blocksWithAnchor(session, `${anchor}-not-appended-yet`)).toEqual([]);
    // Appended since: the updated session finds the new anchor, still without a scan.
    sm.appendMessage(assistant([{ type: "toolCall", id: "c2", name: "bash", arguments: { command: "pwd" } }], "r2"));
    sm.appendMessage(toolResult("c2", "bash", "/project"));
    const after = await updateSession(session);
    // (The snapshot's block array is extended in place: the same array, still forbidden to scan.)
    let added;
    for (let i = after.blocks.length - 1; i >= 0 && added === undefined; i--) if (after.blocks[i]?.anchor !== undefined) added = after.blocks[i];
    if (added?.anchor === undefined || added.anchor === anchor) throw new Error("no new anchored block");
    expect(blocksWithAnchor(after, added.anchor).map((block) => block.index)).toEqual([added.index]);
  });
});
