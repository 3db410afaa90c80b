// The summary's file section never lists a directory: on a session written by Pi's SessionManager where
// the harness read a directory and an earlier (Pi-style) summary listed it among its read files, the
// directory is left out, the files under it stay.
import { readSession } from "@context-fold/ledger-reader";
import { tempDir } from "@context-fold/test-support";
import { compactSession, parseSummary } from "@context-fold/summary-formatter";
import { describe, expect, it } from "vitest";
import { piWriter } from "./pi-session.js";

const NOW = "2026-03-01T10:00:00.000Z";

describe("directories in file lists", () => {
  it("are left out of the summary's files, from tool calls and from an earlier summary's lists", async () => {
    const w = piWriter(tempDir());
    const { cwd } = w;
    w.user("Look around the repository and tell me how the dashboard loads its data.");
    w.assistant([{ type: "toolCall", id: "r1", name: "read", arguments: { path: cwd } }]);
    w.result("r1", "read", "README.md\nsrc/\npackage.json\n");
    w.assistant([{ type: "toolCall", id: "r2", name: "read", arguments: { path: `${cwd}/README.md` } }]);
    w.result("r2", "read", "# Dashboard\n");
    w.assistant([{ type: "text", text: "The README describes the dashboard." }]);
    const firstKept = w.sm.getLeafId() ?? "";
    w.sm.appendCompaction(
      `## Goal\nExplain how the dashboard loads data.\n\n<read-files>\n${cwd}/app\n${cwd}/app/src\n${cwd}/app/src/components/Dashboard.tsx\n${cwd}/README.md\n</read-files>`,
      firstKept,
      1000,
    );
    w.user("now read the loader");
    w.assistant([{ type: "toolCall", id: "r3", name: "read", arguments: { path: `${cwd}/app/src/lib/loader.ts` } }]);
    w.result("r3", "read", "export function load(): void {}\n");
    w.assistant([{ type: "text", text: "The loader fetches on mount." }]);
    w.user("thanks");
    const session = await readSession(w.file);
    const doc = parseSummary(compactSession(session, { now: NOW, keepTail: 1 }).summary);
    const paths = doc.files.map((f) => f.path);
    expect(paths).toContain("app/src/components/Dashboard.tsx");
    expect(paths).toContain("README.md");
    for (const dir of ["app", "app/src", ".", cwd]) expect(paths).not.toContain(dir);
  });
});
