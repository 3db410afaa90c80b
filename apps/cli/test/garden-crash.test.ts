// Crash injection: the built `context-fold garden --apply` is SIGKILLed right after each single PATCH
// reaches the bank (before it sees the answer), then re-run until it finishes, with and without --out.
// The run ledger must keep the run's total within its cap. A loopback proxy in front of a real local
// bank does the killing, so the gardener process is killed exactly where a crash hurts most.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve } from "node:path";
import { startLocalBank, type LocalBank } from "@context-fold/hindsight-local";
import { HindsightClient, defaultLedgerDir, generateExampleBank, ledgerFileFor } from "@context-fold/memory-gardener-client";
import { tempDir } from "@context-fold/test-support";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const mainJs = resolve(import.meta.dirname, "../dist/main.js");
const NOW = "2026-11-20T12:00:00.000Z";
const CAP = 4;

interface KillingProxy {
  readonly url: string;
  /** The gardener process the next PATCH kills. */
  target: ChildProcess | undefined;
  patches: number;
  close(): Promise<void>;
}

function startProxy(upstream: string): Promise<KillingProxy> {
  const up = new URL(upstream);
  const state: { target: ChildProcess | undefined; patches: number } = { target: undefined, patches: 0 };
  const server: Server = createServer((req, res) => {
    // The bank refuses a foreign Host (DNS rebinding), so the proxy speaks to it under its own name.
    const forward = request({ host: up.hostname, port: up.port, method: req.method, path: req.url, headers: { ...req.headers, host: up.host } }, (answer) => {
      if (req.method === "PATCH") {
        // The bank has applied the PATCH; the gardener dies before it learns so.
        state.patches++;
        state.target?.kill("SIGKILL");
        answer.resume();
        res.destroy();
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on("error", () => res.destroy());
    req.pipe(forward);
  });
  return new Promise((done) => {
    server.listen(0, "127.0.0.1", () => {
      const port = (server.address() as AddressInfo).port;
      done({
        url: `http://127.0.0.1:${port}`,
        get target() { return state.target; },
        set target(child) { state.target = child; },
        get patches() { return state.patches; },
        set patches(n) { state.patches = n; },
        close: () => new Promise<void>((closed) => server.close(() => closed())),
      });
    });
  });
}

function runGarden(proxy: KillingProxy, args: readonly string[], stateHome: string): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [mainJs, "garden", "--url", proxy.url, ...args], { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, XDG_STATE_HOME: stateHome } });
  proxy.target = child;
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
  return new Promise((done, fail) => {
    child.once("error", fail);
    child.once("exit", (code, signal) => done({ code, signal, stdout, stderr }));
  });
}

describe("context-fold garden --apply killed after every PATCH", () => {
  let bank: LocalBank;
  let proxy: KillingProxy;
  let client: HindsightClient;
  const generated = generateExampleBank(53, 500, NOW);
  beforeAll(async () => {
    bank = await startLocalBank({ port: 0 });
    client = new HindsightClient({ baseUrl: bank.url });
    for (const id of ["crash-no-out", "crash-out"]) {
      await client.createBank(id, {});
      await client.retain(id, generated.items);
    }
    proxy = await startProxy(bank.url);
  });
  afterAll(async () => {
    await proxy.close();
    await bank.close();
  });

  it("the built CLI exists (pnpm turbo run build --filter=@context-fold/cli...)", () => {
    expect(existsSync(mainJs)).toBe(true);
  });

  // CAP + 1 whole CLI processes, each reading the 500-memory bank: its own timeout, so a loaded machine
  // running the suite's other files beside it does not fail it (9 s in a quiet CI, 60 s at load 25).
  it.each([
    ["without --out", "crash-no-out", false],
    ["with --out", "crash-out", true],
  ] as const)("%s: re-run until done, the run's total never exceeds its cap", { timeout: 240_000 }, async (_label, bankId, withOut) => {
    const stateHome = tempDir();
    const out = tempDir();
    const args = ["--bank", bankId, "--apply", "--max-apply", String(CAP), "--json", ...(withOut ? ["--out", out] : [])];
    const before = proxy.patches;
    let kills = 0;
    let last: Awaited<ReturnType<typeof runGarden>> | undefined;
    for (let attempt = 0; attempt < CAP + 3; attempt++) {
      last = await runGarden(proxy, args, stateHome);
      if (last.signal !== "SIGKILL") break;
      kills++;
    }
    // One kill per PATCH until the cap, then a run that settles the last one and finishes.
    expect(kills).toBe(CAP);
    expect(proxy.patches - before).toBe(CAP);
    expect(last?.signal).toBeNull();
    expect([0, 1]).toContain(last?.code);
    const report = JSON.parse(last?.stdout ?? "") as { applied: number; failedApply: unknown[] };
    expect(report.applied).toBe(CAP);
    let invalidated = 0;
    for await (const m of client.listAll(bankId, { state: "invalidated" })) if (m.id !== "") invalidated++;
    expect(invalidated).toBe(CAP);
    // No contradiction member was touched.
    const disputed = new Set(generated.truth.contradictionGroups.flat());
    for await (const m of client.listAll(bankId, { state: "invalidated" })) expect(disputed.has(m.text)).toBe(false);
    const ledger = JSON.parse(readFileSync(ledgerFileFor(defaultLedgerDir({ XDG_STATE_HOME: stateHome }), { serverUrl: proxy.url, bankId }), "utf8")) as { runs: { run: number; attempted: string[]; completedAt: string | null }[] };
    expect(ledger.runs).toHaveLength(1);
    expect(ledger.runs[0]?.attempted).toHaveLength(CAP);
    expect(ledger.runs[0]?.completedAt).not.toBeNull();
    expect(existsSync(resolve(out, "manifest.json"))).toBe(withOut);
  });
});
