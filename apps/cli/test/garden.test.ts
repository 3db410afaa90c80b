// `context-fold garden` against a real local bank holding the generated example bank.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { HindsightClient, generateExampleBank } from "@context-fold/memory-gardener-client";
import { tempDir } from "@context-fold/test-support";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { cli } from "./support/run-cli.js";

const NOW = "2026-11-20T12:00:00.000Z";
const BANK = "cli-bank";

afterEach(() => {
  process.exitCode = 0;
});

describe("context-fold garden", () => {
  let server: LocalBank;
  let client: HindsightClient;
  const bank = generateExampleBank(19, 550, NOW);
  const stateHome = process.env["XDG_STATE_HOME"];
  beforeAll(async () => {
    // The run ledger goes to the user's state folder: a scratch one here.
    process.env["XDG_STATE_HOME"] = tempDir();
    server = await startLocalBank({ port: 0 });
    client = new HindsightClient({ baseUrl: server.url });
    await client.createBank(BANK, {});
    await client.retain(BANK, bank.items);
    // Already-retired rows: the gardener must never see them.
    const retire = new Set(bank.truth.toInvalidate);
    for await (const m of client.listAll(BANK, { state: "valid" })) {
      if (retire.has(m.text)) await client.patchMemory(BANK, m.id, { state: "invalidated", reason: "retired" });
    }
  });
  afterAll(async () => {
    await server.close();
    if (stateHome === undefined) delete process.env["XDG_STATE_HOME"];
    else process.env["XDG_STATE_HOME"] = stateHome;
  });

  it("prints exactly the contract JSON, report-only, exit 1 for contradictions to review", async () => {
    const out = tempDir();
    const { stdout, exit } = await cli(["garden", "--url", server.url, "--bank", BANK, "--now", NOW, "--out", out, "--json"]);
    expect(exit).toBe(1);
    const json = JSON.parse(stdout) as Record<string, unknown>;
    expect(Object.keys(json)).toEqual(["manifest", "clusters", "actions", "applied", "failedApply", "contradictions"]);
    expect(Object.keys(json["manifest"] as object)).toEqual(["total", "fetched", "shardCount"]);
    expect(Object.keys(json["clusters"] as object)).toEqual(["near_duplicate", "contradiction", "expired_ephemera"]);
    expect(Object.keys(json["actions"] as object)).toEqual(["keep", "supersede", "expire", "flag_contradiction"]);
    expect(json["applied"]).toBe(0);
    const contradictions = json["contradictions"] as { members: { id: string; text: string }[] }[];
    expect(contradictions.length).toBe(bank.truth.contradictionGroups.length);
    expect(contradictions.flatMap((c) => c.members.map((m) => m.text))).toContain("The auth endpoint moved to /v2/auth.");
    expect(readFileSync(join(out, "report.json"), "utf8")).toContain("\"contradictions\"");
    let invalidated = 0;
    for await (const m of client.listAll(BANK, { state: "invalidated" })) if (m.id !== "") invalidated++;
    expect(invalidated).toBe(bank.truth.toInvalidate.length);
  });

  it("applies with --apply --max-apply, and the human report has the review section", async () => {
    const { stdout, exit } = await cli(["garden", "--url", server.url, "--bank", BANK, "--now", NOW, "--out", tempDir(), "--apply", "--max-apply", "4"]);
    expect(exit).toBe(1);
    expect(stdout).toContain("Applied: 4 (verified by re-GET)");
    expect(stdout).toContain("Contradictions flagged (human review required):");
    let invalidated = 0;
    for await (const m of client.listAll(BANK, { state: "invalidated" })) if (m.id !== "") invalidated++;
    expect(invalidated).toBe(bank.truth.toInvalidate.length + 4);
  });

  it("without --now the clock is the wall clock; without --out no phase file is left anywhere", async () => {
    const cwdBefore = readdirSync(process.cwd()).sort();
    const before = Date.now();
    const { stdout } = await cli(["garden", "--url", server.url, "--bank", BANK]);
    const after = Date.now();
    const now = /now (\S+), judge/.exec(stdout)?.[1] ?? "";
    expect(Date.parse(now)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(now)).toBeLessThanOrEqual(after);
    expect(stdout).not.toContain("Phase files:");
    expect(readdirSync(process.cwd()).sort()).toEqual(cwdBefore);
  });

  it("refuses --apply when the run ledger cannot be written, and --new-run without --apply", async () => {
    const blocked = join(tempDir(), "file");
    writeFileSync(blocked, "");
    const saved = process.env["XDG_STATE_HOME"];
    process.env["XDG_STATE_HOME"] = blocked;
    try {
      const r = await cli(["garden", "--url", server.url, "--bank", BANK, "--now", NOW, "--apply"]);
      expect(r.exit).toBe(2);
      expect(r.stderr).toContain("the run ledger cannot be written");
    } finally {
      process.env["XDG_STATE_HOME"] = saved;
    }
    const usage = await cli(["garden", "--url", server.url, "--bank", BANK, "--now", NOW, "--new-run"]);
    expect(usage.exit).toBe(2);
    expect(usage.stderr).toContain("--new-run only applies with --apply");
  });

  it("samples by probe when --probe is given without --mode", async () => {
    const { stdout } = await cli(["garden", "--url", server.url, "--bank", BANK, "--now", NOW, "--out", tempDir(), "--probe", "auth endpoint", "--json"]);
    const json = JSON.parse(stdout) as { manifest: { fetched: number }; contradictions: { members: { text: string }[] }[] };
    expect(json.manifest.fetched).toBeLessThan(bank.items.length / 2);
    expect(json.contradictions.flatMap((c) => c.members.map((m) => m.text))).toContain("The auth endpoint is /v1/auth.");
  });

  it("rejects bad usage with exit 2 and no stack", async () => {
    for (const args of [
      ["--max-apply", "26", "--apply"],
      ["--mode", "sideways"],
      ["--mode", "probe"],
      ["--mode", "window"],
      ["--now", "yesterday"],
    ]) {
      const { exit, stderr } = await cli(["garden", "--url", server.url, "--bank", BANK, "--now", NOW, "--out", tempDir(), ...args]);
      expect(exit).toBe(2);
      expect(stderr).toMatch(/^context-fold: /);
      expect(stderr).not.toContain("    at ");
    }
    const down = await cli(["garden", "--url", "http://127.0.0.1:9", "--bank", BANK, "--now", NOW, "--out", tempDir()]);
    expect(down.exit).toBe(2);
    expect(down.stderr).toContain("the bank answered");
  });

  it("an empty bank is an empty report (exit 0) with no made-up date and no phase files", async () => {
    await client.createBank("cli-empty", {});
    const cwdBefore = readdirSync(process.cwd()).sort();
    const r = await cli(["garden", "--url", server.url, "--bank", "cli-empty"]);
    expect(r.exit).toBe(0);
    expect(r.stdout).toContain("The bank holds no valid memory: nothing to garden.");
    expect(r.stdout + r.stderr).not.toContain("1970");
    expect(readdirSync(process.cwd()).sort()).toEqual(cwdBefore);
    const json = JSON.parse((await cli(["garden", "--url", server.url, "--bank", "cli-empty", "--json"])).stdout) as { manifest: { total: number }; applied: number };
    expect(json.manifest.total).toBe(0);
    expect(json.applied).toBe(0);
  });

  it("sampling options that cannot work are refused before the bank is contacted", async () => {
    // A closed port: any check that waited for the bank would report a network error instead.
    const dead = "http://127.0.0.1:9";
    for (const [args, message] of [
      [["--url", "ftp://x/"], "--url must be an http(s) URL"],
      [["--url", dead, "--mode", "probe"], "--mode probe needs at least one --probe"],
      [["--url", dead, "--mode", "window"], "--mode window needs --from and/or --to"],
      [["--url", dead, "--from", "2026-05-02", "--to", "2026-05-01"], "is after --to"],
      [["--url", dead, "--mode", "recent", "--probe", "ci"], "--probe only applies to --mode probe"],
    ] as const) {
      const r = await cli(["garden", "--bank", BANK, "--now", NOW, ...args]);
      expect(r.exit, message).toBe(2);
      expect(r.stderr, message).toContain(message);
    }
  });
});
