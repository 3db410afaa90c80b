// The items a compaction retains to the memory bank, from a session Pi's own SessionManager wrote: the
// founding request and the corrections verbatim, project-tagged, with stable documentIds; deterministic.
import { describe, expect, test } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { sessionHandoff } from "@context-fold/summary-formatter";
import { tempDir } from "@context-fold/test-support";
import { MEMORY_SOURCE_TAG, projectTag, retainItems } from "../../src/memory/retain-items.js";
import { appendJob, writeJobSession } from "../support/pi-written-session.js";
import { CORRECTION, FOUNDING } from "./support/runtime-pi.js";

describe("retainItems", () => {
  test("founding request and correction, verbatim, tagged, stable ids; the same session gives the same items", async () => {
    const dir = tempDir("cf-retain-");
    const written = writeJobSession(dir, dir, 0);
    const at = Date.UTC(2026, 10, 29, 12, 0, 0);
    written.manager.appendMessage({ role: "user", content: [{ type: "text", text: FOUNDING }], timestamp: at });
    appendJob(written.manager, 1, at + 60_000);
    written.manager.appendMessage({ role: "user", content: [{ type: "text", text: CORRECTION }], timestamp: at + 120_000 });
    appendJob(written.manager, 2, at + 180_000);
    const session = await readSession(written.file);
    const doc = sessionHandoff(session).doc;
    const items = retainItems(doc, "frob");
    expect(items.map((i) => i.content)).toEqual([FOUNDING, CORRECTION]);
    expect(items.map((i) => i.metadata?.["kind"])).toEqual(["founding-request", "correction"]);
    for (const item of items) {
      expect(item.tags).toEqual([projectTag("frob"), MEMORY_SOURCE_TAG, `kind:${item.metadata?.["kind"] ?? ""}`]);
      expect(item.documentId).toBe(`context-fold:${session.header.id}:${item.metadata?.["kind"] ?? ""}:${item.metadata?.["block"] ?? ""}`);
      expect(item.timestamp).toBe(doc.now);
    }
    expect(JSON.stringify(retainItems(sessionHandoff(await readSession(written.file)).doc, "frob"))).toBe(JSON.stringify(items));
  });
});
