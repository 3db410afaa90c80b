// Durable writes against a real file system, with faults injected through the file layer.
import { existsSync, readdirSync, readFileSync, writeFileSync, utimesSync } from "node:fs";
import { spawn } from "node:child_process";
import { join } from "node:path";
import { faultyFs, SimulatedCrash, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import {
  acquireAppendLock,
  appendAt,
  appendFile,
  isTempNameFor,
  LockTimeoutError,
  lockPathFor,
  nodeFileSystem,
  replaceFile,
  ShortWriteError,
  tempPathFor,
  withAppendLock,
  writeAll,
} from "@context-fold/durable-fs";

describe("writeAll", () => {
  it("loops over short writes until every byte is written", () => {
    const dir = tempDir("dfs-");
    const file = join(dir, "a.bin");
    let calls = 0;
    // Every write takes at most 3 bytes.
    const fs = { ...nodeFileSystem, writeSync: (fd: number, b: Uint8Array, o: number, l: number, p: number | null) => (calls++, nodeFileSystem.writeSync(fd, b, o, Math.min(l, 3), p)) };
    const fd = fs.openSync(file, "w");
    writeAll(fd, Buffer.from("hello durable world"), 0, file, fs);
    fs.closeSync(fd);
    expect(readFileSync(file, "utf8")).toBe("hello durable world");
    expect(calls).toBe(7);
  });

  it("throws ShortWriteError when the file system stops taking bytes", () => {
    const dir = tempDir("dfs-");
    const file = join(dir, "a.bin");
    const fs = { ...nodeFileSystem, writeSync: (fd: number, b: Uint8Array, o: number, l: number, p: number | null) => (p !== null && p >= 4 ? 0 : nodeFileSystem.writeSync(fd, b, o, Math.min(l, 4), p)) };
    const fd = fs.openSync(file, "w");
    expect(() => writeAll(fd, Buffer.from("0123456789"), 0, file, fs)).toThrow(ShortWriteError);
    fs.closeSync(fd);
  });
});

describe("replaceFile", () => {
  it("replaces whole, with a random temp name, and leaves no temp file", () => {
    const dir = tempDir("dfs-");
    const file = join(dir, "nested", "state.json");
    replaceFile(file, "old\n");
    expect(replaceFile(file, ["new ", Buffer.from("content"), "\n"])).toBe(12);
    expect(readFileSync(file, "utf8")).toBe("new content\n");
    expect(readdirSync(join(dir, "nested"))).toEqual(["state.json"]);
    const a = tempPathFor(file);
    expect(a).not.toBe(tempPathFor(file));
    expect(isTempNameFor(file, a.slice(join(dir, "nested").length + 1))).toBe(true);
    expect(isTempNameFor(file, "state.json")).toBe(false);
  });

  it("with fsync off, still replaces atomically through a temp file, and fsyncs neither the file nor its folder", () => {
    const dir = tempDir("dfs-");
    const file = join(dir, "seg.bin");
    const synced: number[] = [];
    const renamed: string[] = [];
    const fs = { ...nodeFileSystem, fsyncSync: (fd: number) => (synced.push(fd), nodeFileSystem.fsyncSync(fd)), renameSync: (from: string, to: string) => (renamed.push(from), nodeFileSystem.renameSync(from, to)) };
    replaceFile(file, "one\n", { fs });
    expect(synced.length).toBe(2);
    expect(replaceFile(file, ["two", "\n"], { fs, fsync: false })).toBe(4);
    expect(synced.length).toBe(2);
    expect(readFileSync(file, "utf8")).toBe("two\n");
    expect(renamed.length).toBe(2);
    expect(isTempNameFor(file, renamed[1]?.slice(dir.length + 1) ?? "")).toBe(true);
    expect(readdirSync(dir)).toEqual(["seg.bin"]);
  });

  for (const kind of ["short-write", "enospc", "crash"] as const) {
    it(`a ${kind} at any step keeps the old file whole and removes the temp file (unless the process died)`, () => {
      const dir = tempDir("dfs-");
      const file = join(dir, "state.json");
      replaceFile(file, "the old content\n");
      const big = "x".repeat(3 << 20);
      // Count the mutating calls of a clean run, then fail each one in turn.
      const clean = faultyFs(0, kind);
      replaceFile(join(dir, "probe.json"), [big, big]);
      replaceFile(join(dir, "probe.json"), [big, big], { fs: clean });
      expect(clean.calls).toBeGreaterThan(3);
      for (let at = 1; at <= clean.calls; at++) {
        const fs = faultyFs(at, kind, 100);
        let failed = false;
        try {
          replaceFile(file, [big, big], { fs });
        } catch (error) {
          failed = true;
          if (kind === "crash") expect(error).toBeInstanceOf(SimulatedCrash);
        }
        const now = readFileSync(file, "utf8");
        // The final fsync of the folder comes after the rename: the new file is already whole then.
        expect(now === "the old content\n" || now === big + big, `fault at call ${String(at)} (${fs.log[at - 1] ?? ""})`).toBe(true);
        if (failed && now !== big + big && kind !== "crash") {
          expect(readdirSync(dir).filter((n) => n.endsWith(".tmp")), `fault at ${fs.log[at - 1] ?? ""}`).toEqual([]);
        }
        if (now !== "the old content\n") replaceFile(file, "the old content\n");
      }
    });
  }
});

describe("appendAt / appendFile", () => {
  it("a failed append cuts the file back to its good end", () => {
    const dir = tempDir("dfs-");
    const file = join(dir, "log.jsonl");
    appendFile(file, Buffer.from("one\n"));
    const fs = faultyFs(1, "short-write", 1);
    const fd = fs.openSync(file, "r+");
    expect(() => appendAt(fd, 4, Buffer.from("two two two two\n"), file, true, fs)).toThrow(/ENOSPC/);
    fs.closeSync(fd);
    expect(readFileSync(file, "utf8")).toBe("one\n");
    appendFile(file, Buffer.from("three\n"));
    expect(readFileSync(file, "utf8")).toBe("one\nthree\n");
  });
});

describe("append lock", () => {
  it("serializes holders and releases", async () => {
    const dir = tempDir("dfs-");
    const target = join(dir, "seed-index.jsonl");
    const order: string[] = [];
    await Promise.all(
      ["a", "b", "c"].map((name) =>
        withAppendLock(target, async () => {
          order.push(`${name}+`);
          await new Promise((r) => setTimeout(r, 5));
          order.push(`${name}-`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2) expect(order[i]?.[0]).toBe(order[i + 1]?.[0]);
    expect(existsSync(lockPathFor(target))).toBe(false);
  });

  it("times out against a live holder, with the holder named", async () => {
    const dir = tempDir("dfs-");
    const target = join(dir, "seed-index.jsonl");
    const held = await acquireAppendLock(target);
    const started = Date.now();
    await expect(acquireAppendLock(target, { timeoutMs: 50 })).rejects.toThrow(LockTimeoutError);
    expect(Date.now() - started).toBeLessThan(1000);
    await expect(acquireAppendLock(target, { timeoutMs: 0 })).rejects.toThrow(new RegExp(`pid ${String(process.pid)}`));
    held.release();
    (await acquireAppendLock(target, { timeoutMs: 0 })).release();
  });

  it("takes over a lock left by a dead process, and one older than staleMs", async () => {
    const dir = tempDir("dfs-");
    const target = join(dir, "seed-index.jsonl");
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ["-e", "0"]);
      child.on("exit", () => resolve(child.pid ?? 0));
    });
    const { hostname } = await import("node:os");
    writeFileSync(lockPathFor(target), `${String(dead)} ${hostname()}\n`);
    (await acquireAppendLock(target, { timeoutMs: 0 })).release();
    writeFileSync(lockPathFor(target), `1 some-other-host\n`);
    await expect(acquireAppendLock(target, { timeoutMs: 0 })).rejects.toThrow(LockTimeoutError);
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPathFor(target), old, old);
    (await acquireAppendLock(target, { timeoutMs: 0 })).release();
    expect(readdirSync(dir)).toEqual([]);
  });
});
