import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { readSession } from "@context-fold/ledger-reader";
import { CodeAssigner, validateRecord } from "@context-fold/seed-index-format";
import { describeShared, sessionFixtures } from "@context-fold/test-support";
import { buildCompactRecord, verifySpans } from "@context-fold/extractors";

interface Truth {
  files: Set<string>;
  commands: Set<string>;
}

/** Ground truth straight from the JSONL: edit/write targets and bash commands on the active path. */
function groundTruth(file: string): Truth {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim().length > 0);
  const objects: Record<string, unknown>[] = [];
  for (const line of lines) {
    try {
      objects.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // torn lines are the ledger reader's business; ground truth uses the clean ones
    }
  }
  const header = objects[0] ?? {};
  const cwd = typeof header["cwd"] === "string" ? header["cwd"] : "";
  const entries = objects.slice(1);
  let path = entries;
  if (entries.every((e) => typeof e["id"] === "string")) {
    const byId = new Map(entries.map((e) => [e["id"] as string, e]));
    path = [];
    for (let e = entries[entries.length - 1]; e !== undefined; e = byId.get(e["parentId"] as string)) path.unshift(e);
  }
  const truth: Truth = { files: new Set(), commands: new Set() };
  for (const entry of path) {
    const message = entry["message"] as { role?: string; content?: unknown } | undefined;
    if (message?.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const part of message.content as { type?: string; name?: string; arguments?: Record<string, unknown> }[]) {
      if (part.type !== "toolCall") continue;
      const args = part.arguments ?? {};
      if ((part.name === "edit" || part.name === "write") && typeof args["path"] === "string") {
        const p = args["path"];
        truth.files.add(p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p.startsWith("./") ? p.slice(2) : p);
      }
      if (part.name === "bash" && typeof args["command"] === "string") truth.commands.add(args["command"]);
    }
  }
  return truth;
}

describeShared("seed records over the real session fixtures", () => {
  for (const file of sessionFixtures()) {
    it(`indexes and verifies ${file.split("/").pop() ?? file}`, async () => {
      const session = await readSession(file);
      const record = buildCompactRecord(session, { seq: 0, scope: "lineage", codes: new CodeAssigner() });
      expect(validateRecord(record)).toEqual({ ok: true, kind: "record" });
      const again = buildCompactRecord(await readSession(file), { seq: 0, scope: "lineage" });
      expect(JSON.stringify(again)).toBe(JSON.stringify(record));
      const result = verifySpans(session, [record]);
      expect(result.mismatched).toEqual([]);
      expect(result.missing).toEqual([]);
      expect(result.verified).toBe(record.spans.length);
      const truth = groundTruth(file);
      for (const f of truth.files) expect(record.files).toContain(f);
      for (const c of truth.commands) expect(record.commands).toContain(c);
      expect(record.identifiers.length).toBeLessThanOrEqual(64);
    });
  }
});
