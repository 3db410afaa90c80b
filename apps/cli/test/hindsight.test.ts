// `context-fold hindsight serve`, run as users run it: the built CLI spawned under Node 22, its URL
// read from stdout, real HTTP against it, then SIGINT/SIGTERM and a clean exit; data kept on disk.
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { run } from "../src/program.js";
import { startServe } from "./support/serve-bank.js";

const mainJs = resolve(import.meta.dirname, "../dist/main.js");

describe("context-fold hindsight serve", () => {
  it("the built CLI exists (pnpm turbo run build --filter=@context-fold/cli)", () => {
    expect(existsSync(mainJs)).toBe(true);
  });

  it("prints its URL, serves the API, stops cleanly on SIGTERM and SIGINT, and keeps --data across restarts", async () => {
    const dataDir = join(tempDir(), "bank");
    const first = startServe(["--data", dataDir]);
    const { url } = await first.ready;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ status: "healthy" });
    const retained = await fetch(`${url}/v1/default/banks/cli/memories`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ items: [{ content: "kept across restarts" }] }) });
    expect(retained.status).toBe(200);
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);

    const second = startServe(["--data", dataDir]);
    const again = await second.ready;
    const list = (await (await fetch(`${again.url}/v1/default/banks/cli/memories/list?state=valid`)).json()) as { items: { text: string }[] };
    expect(list.items.map((i) => i.text)).toEqual(["kept across restarts"]);
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
    expect(second.stderr()).toBe("");
  });

  it("without --data the bank lives in $XDG_STATE_HOME/context-fold/bank (else ~/.local/state/…) and survives a restart", async () => {
    const state = tempDir();
    const env = { ...process.env, XDG_STATE_HOME: state };
    const first = startServe([], env);
    const { url, dataDir } = (await first.ready) as { url: string; dataDir: string };
    expect(dataDir).toBe(join(state, "context-fold", "bank"));
    await fetch(`${url}/v1/default/banks/cli/memories`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ items: [{ content: "in the state folder" }] }) });
    first.child.kill("SIGTERM");
    expect(await first.exited).toBe(0);
    const second = startServe([], env);
    const again = await second.ready;
    const list = (await (await fetch(`${again.url}/v1/default/banks/cli/memories/list?state=valid`)).json()) as { items: { text: string }[] };
    expect(list.items.map((i) => i.text)).toEqual(["in the state folder"]);
    second.child.kill("SIGINT");
    expect(await second.exited).toBe(0);
    const home = tempDir();
    const third = startServe([], { ...process.env, XDG_STATE_HOME: "", HOME: home });
    expect(((await third.ready) as { dataDir: string }).dataDir).toBe(join(home, ".local", "state", "context-fold", "bank"));
    third.child.kill("SIGTERM");
    const code3 = await third.exited;
    expect(`${String(code3)} ${third.stderr()}`).toBe("0 ");
  });

  it("loses nothing acknowledged when the server is killed (SIGKILL, no snapshot on close)", async () => {
    const dataDir = join(tempDir(), "bank");
    const first = startServe(["--data", dataDir]);
    const { url } = await first.ready;
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${url}/v1/default/banks/k/memories`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ items: [{ content: `acked ${i}` }] }) });
      expect(res.status).toBe(200);
    }
    first.child.kill("SIGKILL");
    await first.exited;
    const second = startServe(["--data", dataDir]);
    const again = await second.ready;
    const list = (await (await fetch(`${again.url}/v1/default/banks/k/memories/list?limit=100`)).json()) as { total: number };
    expect(list.total).toBe(20);
    second.child.kill("SIGTERM");
    expect(await second.exited).toBe(0);
  });

  it("rejects a bad --port with exit 2 and no stack trace", async () => {
    const errors: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array): boolean => {
      errors.push(String(chunk));
      return true;
    }) as typeof process.stderr.write;
    const before = process.exitCode;
    try {
      await run(["hindsight", "serve", "--port", "99999"]);
      expect(process.exitCode).toBe(2);
    } finally {
      process.stderr.write = write;
      process.exitCode = before;
    }
    expect(errors.join("")).toContain("--port must be an integer");
    expect(errors.join("")).not.toContain("    at ");
  });
});
