// `context-fold index` then `verify` on copies of the real Pi session fixtures, plus a one-byte tamper.
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { readSeedIndexFile, seedIndexPath, validateRecord, type FoldIndexRecord } from "@context-fold/seed-index-format";
import { readSession } from "@context-fold/ledger-reader";
import { describeShared, rawSessionTruth, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { afterEach, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

interface VerifyJson {
  spans: number;
  verified: number;
  mismatched: { seq: number; blockId: string; code: string; reason: string }[];
  missing: { seq: number; blockId: string; code: string; reason: string }[];
}

describeShared("context-fold index + verify on the real fixtures", () => {
  for (const fixture of sessionFixtures()) {
    it(`${basename(fixture)}: index appends a valid record, verify passes`, async () => {
      const dir = tempDir("cli-index-");
      const session = join(dir, basename(fixture));
      copyFileSync(fixture, session);
      const first = await cli(["index", session, "--json"]);
      // Damaged lines (some real files have them) are told on stderr with line and byte offset; nothing else is.
      const damaged = (await readSession(session)).damaged.filter((d) => d.kind !== "blank" && !(d.kind === "no-trailing-newline" && d.recovered));
      // …and, for each, what it does to Pi's view (damageEffects), one line per consequence.
      const told = first.stderr.split("\n").filter((l) => l.length > 0 && !/: (orphans entry|a compaction|Pi's active branch|Pi drops)/.test(l));
      expect(told).toHaveLength(Math.min(damaged.length, 10) + (damaged.length > 10 ? 1 : 0));
      for (const d of damaged.slice(0, 10)) expect(first.stderr).toContain(`${session}:${String(d.line)} (byte ${String(d.byteOffset)}): ${d.reason}`);
      expect(first.exit).toBe(0);
      const record = JSON.parse(first.stdout) as FoldIndexRecord;
      expect(validateRecord(record)).toEqual({ ok: true, kind: "record" });
      expect(record.seq).toBe(0);
      expect(record.trigger).toBe("compact");
      const out = seedIndexPath(session, record.session);
      expect(existsSync(out)).toBe(true);

      const truth = rawSessionTruth(readFileSync(session, "utf8"));
      for (const f of truth.files) expect(record.files).toContain(f);
      for (const c of truth.commands) expect(record.commands).toContain(c);

      // A second run appends seq 1 with the same codes for the same blocks.
      const second = await cli(["index", session, "--trigger", "threshold", "--now", "2026-07-28T21:14:03.000Z", "--json"]);
      const again = JSON.parse(second.stdout) as FoldIndexRecord;
      expect(again.seq).toBe(1);
      expect(again.at).toBe("2026-07-28T21:14:03.000Z");
      expect(again.spans.map((s) => s.code)).toEqual(record.spans.map((s) => s.code));
      const { outcomes } = await readSeedIndexFile(out);
      expect(outcomes.map((o) => o.outcome)).toEqual(["record", "record"]);

      const verify = await cli(["verify", out, "--session", session, "--json"]);
      const result = JSON.parse(verify.stdout) as VerifyJson;
      expect(result.mismatched).toEqual([]);
      expect(result.missing).toEqual([]);
      expect(result.spans).toBe(record.spans.length * 2);
      expect(result.verified).toBe(result.spans);
      // verify checks: a damaged ledger is a finding even when every span verifies.
      expect(verify.exit).toBe(damaged.length > 0 ? 1 : 0);
    });
  }

  it("names the span whose tool result lost one byte", async () => {
    const dir = tempDir("cli-tamper-");
    const session = join(dir, "tampered.jsonl");
    copyFileSync(sharedFixture("sessions", "pi-mono__large-session.jsonl"), session);
    const indexed = await cli(["index", session, "--out", join(dir, "seed-index.jsonl"), "--json"]);
    expect(indexed.exit).toBe(0);
    const record = JSON.parse(indexed.stdout) as FoldIndexRecord;

    const lines = readFileSync(session, "utf8").split("\n");
    const at = lines.findIndex((l) => l.includes('"role":"toolResult"') && /"text":"[A-Za-z]/.test(l));
    const line = lines[at] ?? "";
    const callId = /"toolCallId":"([^"]+)"/.exec(line)?.[1] ?? "";
    const textAt = line.indexOf('"text":"') + '"text":"'.length;
    const original = line.charAt(textAt);
    lines[at] = `${line.slice(0, textAt)}${original === "x" ? "y" : "x"}${line.slice(textAt + 1)}`;
    writeFileSync(session, lines.join("\n"));
    expect(record.spans.some((s) => s.blockId === `r:${callId}`)).toBe(true);

    const verify = await cli(["verify", join(dir, "seed-index.jsonl"), "--session", session, "--json"]);
    expect(verify.exit).toBe(1);
    const result = JSON.parse(verify.stdout) as VerifyJson;
    expect(result.mismatched.map((m) => m.blockId)).toEqual([`r:${callId}`]);
    expect(result.missing).toEqual([]);
    expect(result.verified).toBe(result.spans - 1);

    const human = await cli(["verify", join(dir, "seed-index.jsonl"), "--session", session]);
    expect(human.exit).toBe(1);
    expect(human.stdout).toContain(`r:${callId}`);
  });
});

describe("context-fold index / verify usage", () => {
  it("exits 2 on a missing session or index, and on a bad --now", async () => {
    const dir = tempDir("cli-usage-");
    const missing = await cli(["index", join(dir, "nope.jsonl")]);
    expect(missing.exit).toBe(2);
    expect(missing.stderr).toMatch(/nope\.jsonl/);
    expect((await cli(["verify", join(dir, "none.jsonl"), "--session", join(dir, "nope.jsonl")])).exit).toBe(2);
    expect((await cli(["index", join(dir, "nope.jsonl"), "--now", "yesterday"])).exit).toBe(2);
  });
});
