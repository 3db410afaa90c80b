// Failures a clean exit does not rule out, their resolution, and the question a window ends on.
import { describe, expect, it } from "vitest";
import { extractArtifacts, extractFacts } from "@context-fold/extractors";
import { BlockBuilder } from "./block-builder.js";

const open = (f: ReturnType<typeof extractFacts>) => f.outstanding.filter((o) => !o.resolved);

describe("failure lines in a clean-exit output", () => {
  it("finds a service log's fatal line and a failed migration, not a passing test summary or code", () => {
    const log = [...Array.from({ length: 2000 }, (_, i) => `2026-07-13 12:00:${String(i % 60)} INFO request ok`), "2026-07-13 12:01:00 FATAL: could not bind to port 5432"].join("\n");
    const b = new BlockBuilder()
      .user("why is the api down?")
      .bash("tail -n 5000 /var/log/api.log", log)
      .bash("npx prisma migrate deploy", "Applying migration 0007_add_index\nMigration 0007_add_index failed: relation already exists\n")
      .bash("cargo test", "test result: ok. 15 passed; 0 failed; 0 ignored")
      .bash("cat src/fetch.ts", "    throw new Error(`Failed to fetch models: ${status}`);\n");
    const f = extractFacts(b.blocks);
    expect(open(f).map((o) => [o.source, o.text])).toEqual([
      ["output", "tail -n 5000 /var/log/api.log → 2026-07-13 12:01:00 FATAL: could not bind to port 5432"],
      ["output", "npx prisma migrate deploy → Migration 0007_add_index failed: relation already exists"],
    ]);
    expect(extractArtifacts(b.blocks).errorLedger.map((e) => e.source)).toEqual(["output", "output"]);
  });

  it("looks at a bounded head and tail of a long clean output, so each output costs bounded work", () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `2026-07-13 12:00:${String(i % 60)} INFO request ok`);
    const fatal = "2026-07-13 12:01:00 FATAL: could not bind to port 5432";
    // ≈ 80 KB: the fatal line in the middle lies outside both windows; at the very start it is inside.
    const middle = [...filler(1000), fatal, ...filler(1000)].join("\n");
    const head = [fatal, ...filler(2000)].join("\n");
    const b = new BlockBuilder().user("why is the api down?").bash("cat /var/log/a.log", middle).bash("cat /var/log/b.log", head);
    expect(open(extractFacts(b.blocks)).map((o) => o.text)).toEqual([`cat /var/log/b.log → ${fatal}`]);
  });

  it("finds each kind of failure line, wherever it sits in the output (the literals an output is first looked for)", () => {
    // One line per literal a failure line must hold (shell-outcomes.ts' STRONG_LITERALS).
    const lines = [
      "2026-07-13 12:01:00 ERROR could not reach the database",
      "server: failed to start listener on :8080",
      "config: FAILED to load settings.toml",
      "Fatal error: out of memory",
      "2026-07-13 12:01:00 FATAL: could not bind to port 5432",
      "PANIC: TypeError: heap corrupted",
      "panic: runtime error: index out of range [3] with length 3",
      "Traceback (most recent call last):",
      "Segmentation fault",
      "Aborted (core dumped)",
      "Uncaught TypeError: cannot read properties of undefined",
      "Unhandled promise rejection: connection reset",
      "Migration 0007_add_index failed: relation already exists",
    ];
    const filler = (n: number, at: number) => Array.from({ length: n }, (_, i) => `[step ${String(at + i)}] compiled src/module-${String(i % 37)}.ts in ${String(i % 90)} ms ok`);
    lines.forEach((line, k) => {
      // First, in the middle, last.
      const before = [0, 40, 80][k % 3] ?? 0;
      const b = new BlockBuilder().user("start the service").bash(`./run-${String(k)}.sh`, [...filler(before, 0), line, ...filler(80 - before, before)].join("\n"));
      expect(open(extractFacts(b.blocks)).map((o) => o.text), line).toEqual([`./run-${String(k)}.sh → ${line}`]);
    });
  });

  it("resolves them when the same command later runs clean of them", () => {
    const b = new BlockBuilder()
      .user("run the migration")
      .bash("npx prisma migrate deploy", "Migration 0007 failed: relation already exists\n")
      .edit("prisma/migrations/0007/migration.sql")
      .bash("npx prisma migrate deploy", "All migrations have been successfully applied.\n");
    const f = extractFacts(b.blocks);
    expect(f.outstanding.filter((o) => o.source === "output").map((o) => o.resolved)).toEqual([true]);
  });
});

describe("a question the window ends on", () => {
  it("lists the assistant's closing question nobody answered", () => {
    const b = new BlockBuilder()
      .user("find a robust way to inject headers")
      .bash("grep -rn registerApiProvider node_modules/x", "stream.js:12: registerApiProvider(")
      .say("Three options:\n1. wrap getApiKeyAndHeaders\n2. registerApiProvider wrapper (recommended)\n\nWould you like me to explore implementing that approach?");
    const q = extractFacts(b.blocks).outstanding.filter((o) => o.source === "question");
    expect(q.map((o) => [o.severity, o.resolved, o.text])).toEqual([["INFO", false, "Would you like me to explore implementing that approach?"]]);
  });

  it("lists the user's last question with no reply yet; nothing when the work went on or the text does not ask", () => {
    const asked = new BlockBuilder().user("fix it").say("Done.").user("isn't there a way for us to access it programatically?");
    expect(extractFacts(asked.blocks).outstanding.map((o) => o.text)).toEqual(["user asked: isn't there a way for us to access it programatically?"]);
    const answered = new BlockBuilder().user("why?").say("Because of the cache.");
    expect(extractFacts(answered.blocks).outstanding).toEqual([]);
    const wentOn = new BlockBuilder().user("go").say("Shall I also run the tests?").bash("pnpm test", "ok");
    expect(extractFacts(wentOn.blocks).outstanding).toEqual([]);
  });
});
