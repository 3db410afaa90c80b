// The facts accumulator on hand-built sessions: every fact family, resolution rules, dedup, incremental parity.
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { createFactsAccumulator, extractArtifacts, extractFacts } from "@context-fold/extractors";
import { BlockBuilder } from "./block-builder.js";

const CWD = "/home/dev/project";

const TSC_FAIL = [
  "src/auth/session.ts(5,18): error TS2304: Cannot find name 'authenticateUser'.",
  "src/types.ts(12,3): error TS2322: Type 'string' is not assignable to type 'number'.",
  "",
  "Found 2 errors in 2 files.",
].join("\n");

const VITEST_FAIL = [
  " RUN  v4.1.12 /home/dev/project",
  " ✓ test/a.test.ts > reader > reads 3ms",
  "",
  " FAIL  test/auth.test.ts > refresh > keeps the session",
  "AssertionError: expected 401 to be 200 // Object.is equality",
  "",
  "      Tests  1 failed | 5 passed (6)",
].join("\n");

describe("goal, scope changes, preferences, corrections", () => {
  it("keeps the founding request verbatim and classifies later messages", () => {
    const b = new BlockBuilder()
      .user("/mode")
      .user("Fix the auth bug: users can't log in after a password reset.\nStart with src/auth/session.ts.")
      .say("Let me read it.")
      .user("Also update the session token refresh logic.")
      .user("No, actually keep the old signature of refreshToken — other callers depend on it.")
      .user("Always run `pnpm exec tsc -b` before you commit. I don't understand the second error though.")
      .user("stop");
    const f = extractFacts(b.blocks, { cwd: CWD });
    const a = extractArtifacts(b.blocks, { cwd: CWD });
    expect(f.goal?.text).toBe("Fix the auth bug: users can't log in after a password reset.\nStart with src/auth/session.ts.");
    expect(f.goal?.index).toBe(1);
    expect(a.initialPrompts.map((p) => p.text)).toEqual(["/mode", f.goal?.text]);
    expect(f.scopeChanges.map((s) => s.text)).toEqual(["Also update the session token refresh logic."]);
    expect(a.corrections.map((c) => c.text)).toEqual([
      "No, actually keep the old signature of refreshToken — other callers depend on it.",
    ]);
    expect(f.preferences.map((p) => p.text)).toEqual(["Always run `pnpm exec tsc -b` before you commit."]);
  });
});

describe("files and symbols", () => {
  it("tracks read / modified / created with symbols, relative to cwd", () => {
    const b = new BlockBuilder()
      .user("Refactor the session module please")
      .read(`${CWD}/src/auth/session.ts`, "export function refreshToken(t: string): Promise<Session> {\n}\nexport interface Session {\n}\n")
      .edit("src/auth/session.ts", "export function verifyToken(t: string): Promise<User> {")
      .write("tests/auth-refresh.test.ts", "import { it } from 'vitest';\n")
      .read("src/types.ts", "export interface User {\n}\nexport type AuthPayload = {\n")
      .edit("src/types.ts", "x", false);
    const f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.files.map((x) => [x.path, x.status, x.symbols])).toEqual([
      ["src/auth/session.ts", "modified", ["refreshToken", "Session", "verifyToken"]],
      ["tests/auth-refresh.test.ts", "created", []],
      ["src/types.ts", "read", ["User", "AuthPayload"]],
    ]);
    expect(f.typeCatalog.map((t) => `${t.path}: ${t.line}`)).toEqual([
      "src/auth/session.ts: export function refreshToken(t: string): Promise<Session> {",
      "src/auth/session.ts: export interface Session {",
      "src/auth/session.ts: export function verifyToken(t: string): Promise<User> {",
      "src/types.ts: export interface User {",
      "src/types.ts: export type AuthPayload = {",
    ]);
    // Modified files come first in the catalog; the failed edit is a tool error, not a modification.
    expect(f.typeCatalog[0]?.path).toBe("src/auth/session.ts");
    expect(f.typeCatalog.at(-1)?.path).toBe("src/types.ts");
    const failed = f.outstanding.find((o) => o.source === "tool");
    expect(failed).toMatchObject({ severity: "WARN", resolved: false, file: "src/types.ts" });
    expect(f.status.lastModification?.text).toBe('Write "tests/auth-refresh.test.ts"');
    expect(extractArtifacts(b.blocks, { cwd: CWD }).files).toEqual(["src/auth/session.ts", "tests/auth-refresh.test.ts"]);
  });
});

describe("files written by shell commands", () => {
  it("redirects, sed -i and tee count, relative to the command's cd; failed runs do not", () => {
    const b = new BlockBuilder()
      .user("Generate the fixtures")
      .bash("cd packages/x && cat > fixtures/a.json << 'EOF'\n{}\nEOF", "")
      .read("src/b.ts", "export const b = 1;\n")
      .bash("sed -i 's/1/2/' src/b.ts", "")
      .bash("echo x > never.txt && false", "", 1);
    const f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.files.map((x) => [x.path, x.status])).toEqual([
      ["packages/x/fixtures/a.json", "created"],
      ["src/b.ts", "modified"],
    ]);
    expect(f.status.lastModification).toEqual({ text: 'bash edit "src/b.ts"', index: 6 });
    expect(f.turns[0]?.oneLine).toBe("Generate the fixtures → read b.ts; edited b.ts; wrote a.json; ran cat >, sed -i, echo x");
  });
  it("a copy's destination is created; a home path stays a home path, whatever the command's cd", () => {
    const b = new BlockBuilder()
      .user("Copy the dark theme over so I can edit it")
      .bash("cd packages/app && cp src/theme/dark.json ~/.pi/agent/themes/custom-dark.json", "")
      .bash("cp src/theme/light.json themes/", "");
    const f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.files.map((x) => [x.path, x.status])).toEqual([
      ["~/.pi/agent/themes/custom-dark.json", "created"],
      ["themes/light.json", "created"],
    ]);
  });
});

describe("commits", () => {
  it("reads commit, root-commit, amend, cherry-pick and fast-forward merge output; ignores other hex", () => {
    const b = new BlockBuilder()
      .user("Commit the work")
      .bash('git add -A && git commit -m "fix(auth): refresh token after reset"', "[main a1b2c3d] fix(auth): refresh token after reset\n 2 files changed, 10 insertions(+)")
      .bash("git commit --amend --no-edit", "[main 9f8e7d6] fix(auth): refresh token after reset\n Date: Mon\n 2 files changed")
      .bash("git cherry-pick 1234abc", "[release/1.x 5566778] backport: guard\n 1 file changed, 1 insertion(+)")
      .bash("git merge feature/x", "Updating 1111111..2222222\nFast-forward\n src/a.ts | 2 +-")
      .bang('git commit -m "init"', "[main (root-commit) 0abcdef] init\n 1 file changed")
      .bash("git log --oneline -3", "deadbee some older commit\ncafe123 another")
      .bash("cat notes.txt", "[main 7777777] looks like a commit but it is file content")
      .say("The checksum is 3f2a9c1d and the magic 0xDEADBEEF");
    const f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.commits.map((c) => [c.hash, c.kind, c.branch ?? null, c.subject])).toEqual([
      ["a1b2c3d", "commit", "main", "fix(auth): refresh token after reset"],
      ["9f8e7d6", "amend", "main", "fix(auth): refresh token after reset"],
      ["5566778", "cherry-pick", "release/1.x", "backport: guard"],
      ["2222222", "merge", null, "fast-forward from 1111111"],
      ["0abcdef", "commit", "main", "init"],
    ]);
    expect(f.anchors.commits).toEqual(["a1b2c3d", "9f8e7d6", "5566778", "2222222", "0abcdef"]);
    const a = extractArtifacts(b.blocks, { cwd: CWD });
    expect(a.hexConstants.map((h) => h.value)).toEqual(["3f2a9c1d", "0xDEADBEEF"]);
  });

  it("a commit-looking line needs git's 'files changed' line when the command is unknown", () => {
    const b = new BlockBuilder().user("x").tool("bash", {}, "[main abcdef1] subject only");
    expect(extractFacts(b.blocks).commits).toEqual([]);
    const c = new BlockBuilder().user("x").tool("bash", {}, "[main abcdef1] subject\n 1 file changed");
    expect(extractFacts(c.blocks).commits.map((x) => x.hash)).toEqual(["abcdef1"]);
  });
});

describe("outstanding context", () => {
  it("tsc errors resolve when their file is edited; the failing command stays until it succeeds", () => {
    const b = new BlockBuilder()
      .user("Make the build pass")
      .bash("pnpm exec tsc --noEmit", TSC_FAIL, 2)
      .edit("src/auth/session.ts");
    let f = extractFacts(b.blocks, { cwd: CWD });
    const byText = (t: string) => f.outstanding.find((o) => o.text.includes(t) && (o.source !== "bash-exit" || t.includes("→")));
    expect(byText("TS2304")).toMatchObject({ severity: "ERROR", resolved: true, source: "tsc", errorId: "TS2304", file: "src/auth/session.ts" });
    expect(byText("TS2322")).toMatchObject({ severity: "ERROR", resolved: false, file: "src/types.ts" });
    expect(byText("tsc --noEmit →")).toMatchObject({ severity: "ERROR", resolved: false, label: "bash:exit 2" });
    expect(f.anchors.errorIds).toEqual(["TS2322"]);
    // Unresolved first, by severity, then session order.
    expect(f.outstanding.map((o) => o.resolved)).toEqual([false, false, true]);
    b.bash("pnpm exec tsc --noEmit", "", 0);
    f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.outstanding.every((o) => o.resolved)).toBe(true);
    const a = extractArtifacts(b.blocks, { cwd: CWD });
    expect(a.workingCommands).toEqual([{ command: "pnpm exec tsc --noEmit", failedIndex: 2, succeededIndex: 6 }]);
  });

  it("paths are resolved against the command's cd: one error seen from two directories is one item", () => {
    const b = new BlockBuilder()
      .user("typecheck both packages")
      .bash("cd packages/agent && npx tsc --noEmit", "../coding-agent/src/core/session.ts(16,58): error TS2305: Module has no exported member 'QueueMode'.", 2)
      .bash(`cd ${CWD}/packages/coding-agent && npx tsc --noEmit`, "src/core/session.ts(16,58): error TS2305: Module has no exported member 'QueueMode'.", 2);
    let f = extractFacts(b.blocks, { cwd: CWD });
    const tsc = f.outstanding.filter((o) => o.source === "tsc");
    expect(tsc).toHaveLength(1);
    expect(tsc[0]).toMatchObject({ file: "packages/coding-agent/src/core/session.ts", resolved: false, index: 4 });
    b.edit("packages/coding-agent/src/core/session.ts");
    f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.outstanding.find((o) => o.source === "tsc")).toMatchObject({ resolved: true, resolvedIndex: 6 });
  });

  it("failing tests from vitest, jest, pytest, go test and cargo are ERROR until the same command passes", () => {
    const jest = ["FAIL src/__tests__/cursor.spec.ts", "  ● cursor › resumes after a torn line", "", "    expect(received).toBe(expected)", "Tests:       1 failed, 3 passed, 4 total"].join("\n");
    const pytest = ["=========================== short test summary info ============================", "FAILED tests/test_merge.py::test_rows_3 - KeyError: 'shard_id' (row 12)", "1 failed, 9 passed in 0.12s"].join("\n");
    const gotest = ["=== RUN   TestShardMerge", "--- FAIL: TestShardMerge (0.01s)", "    shard_test.go:42: TestShardMerge: got 3 rows, want 4", "FAIL", "FAIL\tgithub.com/acme/foldd/internal/shard\t0.120s"].join("\n");
    const cargo = ["running 2 tests", "test cursor::tests::resumes ... FAILED", "test cursor::tests::ok ... ok", "", "failures:", "---- cursor::tests::resumes stdout ----", "thread 'cursor::tests::resumes' panicked at crates/hasher/src/cursor.rs:88:9:", "test result: FAILED. 1 passed; 1 failed"].join("\n");
    const b = new BlockBuilder()
      .user("Run every suite")
      .bash("pnpm exec vitest run", VITEST_FAIL, 1)
      .bash("npx jest", jest, 1)
      .bash("pytest -q", pytest, 1)
      .bash("go test ./...", gotest, 1)
      .bash("cargo test", cargo, 101);
    let f = extractFacts(b.blocks, { cwd: CWD });
    const tests = f.outstanding.filter((o) => o.source === "tests");
    expect(tests.map((t) => t.text)).toEqual([
      "FAIL  test/auth.test.ts > refresh > keeps the session — AssertionError: expected 401 to be 200 // Object.is equality",
      "FAIL src/__tests__/cursor.spec.ts",
      "● cursor › resumes after a torn line — expect(received).toBe(expected)",
      "FAILED tests/test_merge.py::test_rows_3 - KeyError: 'shard_id' (row 12)",
      "--- FAIL: TestShardMerge (0.01s) — shard_test.go:42: TestShardMerge: got 3 rows, want 4",
      "test cursor::tests::resumes ... FAILED — thread 'cursor::tests::resumes' panicked at crates/hasher/src/cursor.rs:88:9:",
    ]);
    expect(tests.every((t) => t.severity === "ERROR" && !t.resolved)).toBe(true);
    expect(f.outstanding.find((o) => o.command === "pnpm exec vitest run" && o.source === "bash-exit")?.text).toBe(
      "pnpm exec vitest run → 1 failing test",
    );
    b.bash("cd /home/dev/project && pnpm exec vitest run 2>&1 | tail -20", " ✓ test/auth.test.ts > refresh > keeps the session 2ms", 0);
    b.bash("pytest -q", "10 passed in 0.1s", 0);
    f = extractFacts(b.blocks, { cwd: CWD });
    const open = f.outstanding.filter((o) => !o.resolved).map((o) => o.text);
    expect(open.some((t) => t.includes("test/auth.test.ts"))).toBe(false);
    expect(open.some((t) => t.includes("test_merge.py"))).toBe(false);
    expect(open.some((t) => t.includes("TestShardMerge"))).toBe(true);
    expect(open.some((t) => t.includes("cursor::tests::resumes"))).toBe(true);
  });

  it("a failure seen again after being resolved is open again (deduplicated, latest place)", () => {
    const b = new BlockBuilder()
      .user("fix it")
      .bash("pnpm exec tsc --noEmit", TSC_FAIL, 2)
      .edit("src/types.ts")
      .bash("pnpm exec tsc --noEmit", TSC_FAIL, 2);
    const f = extractFacts(b.blocks, { cwd: CWD });
    const ts2322 = f.outstanding.filter((o) => o.errorId === "TS2322");
    expect(ts2322).toHaveLength(1);
    expect(ts2322[0]).toMatchObject({ resolved: false, index: 6 });
    expect(f.outstanding.filter((o) => o.source === "bash-exit")).toHaveLength(1);
  });

  it("empty searches are INFO, tool errors WARN, user blockers WARN", () => {
    const b = new BlockBuilder()
      .user("find the verifier")
      .bash('grep -rn "verifyCredentials" src/', "(no output)", 1)
      .tool("grep", { pattern: "verifyToken" }, "No matches found")
      .tool("find", { pattern: "*.proto" }, "")
      .tool("read", { path: "src/missing.ts" }, "ENOENT: no such file or directory, open 'src/missing.ts'", true)
      .user("The build is still failing with the same error")
      .say("I'll look.");
    const f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.outstanding.map((o) => [o.severity, o.source, o.text])).toEqual([
      ["WARN", "tool", "read src/missing.ts → ENOENT: no such file or directory, open 'src/missing.ts'"],
      ["WARN", "user", "The build is still failing with the same error"],
      ["INFO", "no-matches", 'grep -rn "verifyCredentials" src/'],
      ["INFO", "no-matches", 'grep "verifyToken"'],
      ["INFO", "no-matches", 'find "*.proto"'],
    ]);
  });

  it("a user blocker counts as handled once files changed and the user moved on", () => {
    const b = new BlockBuilder().user("The login page still crashes on submit").edit("src/login.ts").user("Thanks, now add a test");
    const f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.outstanding[0]).toMatchObject({ source: "user", resolved: true, resolvedIndex: 3 });
  });

  it("non-zero exits of !cmd and bash are reported with their exit code; their output's first error line is the gist", () => {
    const b = new BlockBuilder()
      .user("build")
      .bang("make", "cc -c a.c\na.c:3:5: error: unknown type name 'sds'\nmake: *** [a.o] Error 1", 2);
    const f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.outstanding.map((o) => [o.label, o.text])).toEqual([
      ["compiler", "a.c:3:5: error: unknown type name 'sds'"],
      ["!cmd:exit 2", "make → 1 compiler error"],
    ]);
  });
});

describe("adversarial tool output", { timeout: LINEAR_TIME_MS }, () => {
  it("1 MB outputs of one character through every path finish", () => {
    for (const ch of [" ", "\n", "a", ">", "[", "F", "e", "#", "0"]) {
      const big = ch.repeat(1_000_000);
      const b = new BlockBuilder()
        .user(big)
        .say(big)
        .bash(`grep ${big.slice(0, 3000)}`, big, 1)
        .bash("pnpm test | tail", big, 0)
        .bang("make", big, 2)
        .read("src/a.ts", big)
        .write("src/b.py", big)
        .tool("grep", { pattern: "x" }, big)
        .tool("edit", { path: "src/c.go", newText: big }, big, true);
      const f = extractFacts(b.blocks);
      expect(f.turns).toHaveLength(1);
      expect(extractArtifacts(b.blocks).initialPrompts).toHaveLength(1);
    }
  });
});

describe("turns, status, anchors", () => {
  it("one line per turn, focus, last modification and next steps", () => {
    const b = new BlockBuilder()
      .user("Set up the project structure")
      .read("package.json", "{}")
      .read("tsconfig.json", "{}")
      .user("Install auth dependencies")
      .bash("bun add jose", "installed jose")
      .edit("package.json")
      .user("Configure the test runner and run it")
      .edit("bunfig.toml")
      .bash("bun test", "3 pass")
      .say("Done.\n\nNext steps:\n1. add the refreshToken signature\n2. run the suite again\n\nThat's all.");
    const f = extractFacts(b.blocks, { cwd: CWD });
    expect(f.turns.map((t) => t.oneLine)).toEqual([
      "Set up the project structure → read package.json, tsconfig.json",
      "Install auth dependencies → edited package.json; ran bun add",
      "Configure the test runner and run it → edited bunfig.toml; ran bun test",
    ]);
    expect(f.turns.map((t) => t.index)).toEqual([0, 5, 10]);
    expect(f.status).toEqual({
      focus: "Configure the test runner and run it",
      focusIndex: 10,
      lastModification: { text: 'Edit "bunfig.toml"', index: 12 },
      nextSteps: ["add the refreshToken signature", "run the suite again"],
    });
    expect(f.anchors.keyFiles).toEqual(["bunfig.toml", "package.json"]);
    expect(f.range).toEqual({ first: 0, last: 15 });
  });
});

describe("incremental", () => {
  it("feeding turn by turn gives the same facts and artifacts as one pass, and old blocks are ignored", () => {
    const b = new BlockBuilder()
      .user("Fix the auth bug in src/auth/session.ts")
      .read("src/auth/session.ts", "export function refreshToken() {}\n")
      .bash("pnpm exec tsc --noEmit", TSC_FAIL, 2)
      .user("No, actually don't touch types.ts")
      .edit("src/auth/session.ts", "export const x = 0xCAFE;")
      .bash("pnpm exec tsc --noEmit", "", 0)
      .bash('git commit -am "fix"', "[main 1a2b3c4] fix\n 1 file changed")
      .user("Also add a test")
      .write("test/session.test.ts", "it('works', () => {});\n");
    const acc = createFactsAccumulator({ cwd: CWD });
    const snapshots: string[] = [];
    for (const turn of b.byTurn()) {
      acc.add(turn);
      snapshots.push(JSON.stringify(acc.facts()));
    }
    acc.add(b.blocks.slice(0, 5)); // already seen: ignored
    expect(acc.blockCount).toBe(b.blocks.length);
    expect(acc.lastIndex).toBe(b.blocks.length - 1);
    expect(JSON.stringify(acc.facts())).toBe(JSON.stringify(extractFacts(b.blocks, { cwd: CWD })));
    expect(JSON.stringify(acc.artifacts())).toBe(JSON.stringify(extractArtifacts(b.blocks, { cwd: CWD })));
    expect(new Set(snapshots).size).toBe(3);
  });

  it("snapshots are copies: mutating one does not change the accumulator", () => {
    const b = new BlockBuilder().user("Fix the reader please").edit("src/a.ts");
    const acc = createFactsAccumulator();
    acc.add(b.blocks);
    const f = acc.facts();
    (f.files as unknown as unknown[]).length = 0;
    expect(acc.facts().files).toHaveLength(1);
  });
});
