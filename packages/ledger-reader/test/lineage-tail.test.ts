// lineageBlocksAfter on a file Pi's SessionManager writes: after appends it gives exactly the blocks
// the lineage gained; after a branch switch it says to start over.
import { tempDir } from "@context-fold/test-support";
import { lineageBlocks, lineageBlocksAfter, readSession, updateSession } from "@context-fold/ledger-reader";
import { describe, expect, it } from "vitest";
import { assistant, lsSession, user } from "./pi-messages.js";

describe("lineageBlocksAfter", () => {
  it("gives the blocks appended on the lineage since an entry, and undefined once that entry left it", async () => {
    const { sm, file } = lsSession(tempDir());
    const before = await readSession(file);
    const seen = lineageBlocks(before).length;
    const leaf = before.leafId;
    expect(lineageBlocksAfter(before, null)?.map((b) => b.index)).toEqual(lineageBlocks(before).map((b) => b.index));
    expect(lineageBlocksAfter(before, leaf)).toEqual([]);
    sm.appendMessage(assistant([{ type: "text", text: "listed" }], "r2"));
    sm.appendMessage(user("second"));
    const after = await updateSession(before);
    const fresh = lineageBlocksAfter(after, leaf);
    expect(fresh?.map((b) => b.text)).toEqual(["listed", "second"]);
    expect(fresh?.map((b) => b.index)).toEqual(lineageBlocks(after).slice(seen).map((b) => b.index));
    // Pi goes back to the first message and continues there: the old leaf is off the lineage.
    const first = after.lineage[0]?.id;
    if (first === undefined) throw new Error("no entry");
    const lastLeaf = after.leafId;
    sm.branch(first);
    sm.appendMessage(assistant([{ type: "text", text: "another way" }], "r3"));
    const branched = await updateSession(after);
    expect(lineageBlocksAfter(branched, lastLeaf)).toBeUndefined();
    expect(lineageBlocksAfter(branched, first)?.map((b) => b.text)).toEqual(["another way"]);
  });
});
