// Checks that every (#N) in a summary, expanded through the ledger reader, is the block its line
// describes: by line prefix for the bracketed text, then section by section through the parsed doc.
import { blockAt, type Session } from "@context-fold/ledger-reader";
import { parseSummary } from "@context-fold/summary-formatter";
import { expect } from "vitest";

/** Checks that every (#N) on a line of `text` is a block the line describes. */
export function checkRefs(session: Session, text: string): number {
  let checked = 0;
  for (const line of text.split("\n")) {
    const refs = [...line.matchAll(/\(#(\d{1,7})\)/g)].map((m) => Number(m[1]));
    for (const n of refs) {
      const block = blockAt(session, n);
      expect(block, `#${String(n)} on "${line}"`).toBeDefined();
      if (block === undefined) continue;
      checked++;
      const body = line.replace(/^-\s|^\s+/, "");
      if (body.startsWith("[user] ")) expect(block.kind).toBe("user");
      else if (body.startsWith("[assistant] ")) expect(block.kind).toBe("text");
      else if (body.startsWith("* ")) {
        expect(block.kind).toBe("toolCall");
        expect(body.slice(2).toLowerCase().startsWith((block.toolName ?? "").toLowerCase())).toBe(true);
      } else if (body.startsWith("[user !] ")) expect(block.kind).toBe("bash");
      else if (body.startsWith("[Founding request] ") || body.startsWith("[Scope change] ") || body.startsWith("[Correction] ") || body.startsWith("Working on: ")) {
        // A goal or scope change an earlier foreign summary stated points to its compaction block.
        if (block.kind === "compaction" && !body.startsWith("Working on: ")) expect(block.text).toContain(body.slice(body.indexOf("] ") + 2).replace(/ \(#\d{1,7}\)$/, "").slice(0, 20).trim());
        else expect(block.kind).toBe("user");
      }
      else if (body.startsWith("Modified: ") || body.startsWith("Created: ") || body.startsWith("Read: ")) {
        const path = body.slice(body.indexOf(": ") + 2).split(" ")[0] ?? "";
        // The last block touching the file: its tool call, or the result answering that call.
        const call = block.kind === "toolResult" ? session.blocks.find((b) => b.kind === "toolCall" && b.toolCallId === block.toolCallId) : block;
        // A shell command run after `cd <dir> &&` names the file relative to that directory: its name suffices.
        const args = JSON.stringify(call?.args ?? {});
        const name = path.slice(path.lastIndexOf("/") + 1);
        const shellNamed = typeof call?.args?.["command"] === "string" && name !== "" && args.includes(name);
        expect(args.includes(path) || block.text.includes(path) || shellNamed, `${path} in #${String(n)}`).toBe(true);
      } else if (/^[0-9a-f]{7,40}: /.test(body)) expect(block.text).toContain(body.slice(0, body.indexOf(":")));
    }
  }
  // Section by section, through the parsed document.
  const doc = parseSummary(text);
  const kind = (n: number): string | undefined => blockAt(session, n)?.kind;
  for (const t of doc.earlierTurns) expect(kind(t.index), t.text).toBe("user");
  for (const p of [...doc.scopeChanges, ...doc.corrections]) expect(["user", "compaction"], p.text).toContain(kind(p.index));
  for (const p of doc.preferences) expect(kind(p.index), p.text).toBe("user");
  for (const o of doc.outstanding) {
    expect(["toolResult", "bash", "user"], o.text).toContain(kind(o.index));
    if (o.resolvedIndex !== undefined) expect(["toolCall", "toolResult", "bash", "user"]).toContain(kind(o.resolvedIndex));
  }
  if (doc.status.lastAction !== null) expect(["toolCall", "toolResult"]).toContain(kind(doc.status.lastAction.index));
  // A previous summary points to its compaction block; a branch summary to its branch_summary block.
  for (const p of doc.previous) if (p.index !== null) expect(kind(p.index)).toBe(p.label === "branch summary" ? "branchSummary" : "compaction");
  return checked;
}

