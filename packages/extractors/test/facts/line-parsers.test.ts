// Line-level parsers: git output, diagnostics, shell commands, user text — plus one adversarial case per regex family.
import { describe, expect, it } from "vitest";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import {
  blockerLine,
  commandDir,
  commandKey,
  commitKindOf,
  diagnosticsGist,
  failureGist,
  isCorrection,
  isScopeChange,
  isSearchCommand,
  printsFileContent,
  isTestCommand,
  nextSteps,
  parseDiagnostics,
  parseGitCommits,
  preferenceSentences,
  programOf,
  shellWrites,
  trailingExitCode,
} from "@context-fold/extractors";

const MB = 1_000_000;

describe("parseGitCommits", () => {
  it("only git's own shapes count", () => {
    expect(parseGitCommits("[main 45ffe0a] Release v0.8.0\n 3 files changed", 'git commit -m "Release v0.8.0"')).toEqual([
      { hash: "45ffe0a", subject: "Release v0.8.0", branch: "main", kind: "commit" },
    ]);
    expect(parseGitCommits("[detached HEAD 45ffe0a] wip", "git commit -m wip")[0]?.branch).toBe("detached HEAD");
    // Not git: no commits, whatever the text looks like.
    expect(parseGitCommits("[main 45ffe0a] Release", "cat CHANGELOG.md")).toEqual([]);
    expect(parseGitCommits("[main 45ffe0g] not hex\n 1 file changed", "git commit")).toEqual([]);
    expect(parseGitCommits("[main 45ffe0] too short\n 1 file changed", "git commit")).toEqual([]);
    expect(parseGitCommits("commit 45ffe0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7\nAuthor: x", "git log")).toEqual([]);
    expect(parseGitCommits("Updating 1111111..2222222\nnot a fast forward", "git pull")).toEqual([]);
  });
  it("kind follows the command", () => {
    expect(commitKindOf("git commit --amend -m x")).toBe("amend");
    expect(commitKindOf("git cherry-pick abc1234")).toBe("cherry-pick");
    expect(commitKindOf("git merge --no-ff feature")).toBe("merge");
    expect(commitKindOf("git pull --rebase")).toBe("merge");
    expect(commitKindOf("git commit -m 'merge later'")).toBe("commit");
  });
  it("adversarial: 1 MB of '[' / one bracket line / hex", { timeout: LINEAR_TIME_MS }, () => {
    expect(parseGitCommits("[".repeat(MB), "git commit")).toEqual([]);
    expect(parseGitCommits(`[${"a ".repeat(MB / 2)}`, "git commit")).toEqual([]);
    expect(parseGitCommits(`[main ${"a".repeat(MB)}] x`, "git commit")).toEqual([]);
    expect(parseGitCommits("Updating " + "1".repeat(MB), "git merge x")).toEqual([]);
  });
});

describe("parseDiagnostics", () => {
  it("tsc (plain and pretty), gcc, go build, rustc", () => {
    const out = [
      "src/a.ts(1,2): error TS2304: Cannot find name 'x'.",
      "src/b.ts:3:4 - error TS2322: Type 'string' is not assignable to type 'number'.",
      "lib/c.c:10:2: error: expected ';' before '}' token",
      "./cmd/main.go:12:5: undefined: runShard",
      "error[E0308]: mismatched types",
      "  --> crates/hasher/src/lib.rs:42:9",
      "warning: unused variable",
    ].join("\n");
    expect(parseDiagnostics(out).map((d) => [d.kind, d.file ?? null, d.errorId ?? null])).toEqual([
      ["tsc", "src/a.ts", "TS2304"],
      ["tsc", "src/b.ts", "TS2322"],
      ["compiler", "lib/c.c", null],
      ["compiler", "./cmd/main.go", null],
      ["compiler", "crates/hasher/src/lib.rs", "E0308"],
    ]);
    expect(diagnosticsGist(parseDiagnostics(out))).toBe("2 tsc errors, 3 compiler errors");
  });
  it("same error at a new line/column is one diagnostic", () => {
    const out = "src/a.ts(1,2): error TS2304: Cannot find name 'x'.\nsrc/a.ts(9,9): error TS2304: Cannot find name 'x'.";
    expect(parseDiagnostics(out)).toHaveLength(1);
  });
  it("exit code trailer and gists", () => {
    expect(trailingExitCode("boom\n\nCommand exited with code 2")).toBe(2);
    expect(trailingExitCode("ok")).toBeNull();
    expect(trailingExitCode("Command timed out after 30 seconds")).toBe(124);
    expect(failureGist("lots\nTests:       2 failed, 3 passed\n\nCommand exited with code 1")).toBe("2 tests failed");
    expect(failureGist("cc a.c\nmake: *** [a.o] Error 1\n\nCommand exited with code 2")).toBe("make: *** [a.o] Error 1");
    expect(failureGist("just text\nlast line\n\nCommand exited with code 3")).toBe("last line");
    // A minified source line is an error line too, but the message under it is the gist.
    const minified = `${"x=I(g.bgBlue(' ESM ')),".repeat(20)}throw new Error("boom")`;
    expect(failureGist(`${minified}\n     ^\n\nError: Cannot find module './config.js'\n    at load (node:internal)\n\nCommand exited with code 1`)).toBe(
      "Error: Cannot find module './config.js'",
    );
  });
  it("adversarial: 1 MB lines of one character", { timeout: LINEAR_TIME_MS }, () => {
    for (const ch of ["a", "(", ":", " ", "F", "-", "e", "'", "\t"]) {
      const text = ch.repeat(MB);
      expect(parseDiagnostics(text)).toEqual([]);
      expect(typeof failureGist(text)).toBe("string");
      expect(trailingExitCode(text)).toBeNull();
    }
    expect(parseDiagnostics(`src/a.ts(${"1".repeat(MB)}`)).toEqual([]);
    expect(parseDiagnostics(`FAIL  ${"x".repeat(MB)}`)).toHaveLength(1);
    expect(parseDiagnostics(`thread '${"x".repeat(MB)}`)).toEqual([]);
  });
});

describe("shell commands", () => {
  it("commandKey folds cd, 2>&1, tail/head and whitespace", () => {
    expect(commandKey("cd packages/x && pnpm test 2>&1 | tail -30")).toBe("cd packages/x && pnpm test");
    expect(commandKey("cd /repo/ && pnpm test 2>&1 | tail -30", "/repo")).toBe("pnpm test");
    expect(commandKey("cd . && pnpm test", "/repo")).toBe("pnpm test");
    expect(commandKey("  pnpm   test  ")).toBe("pnpm test");
    expect(commandKey("pnpm test | grep FAIL")).toBe("pnpm test | grep FAIL");
  });
  it("commandDir follows leading cd steps from the session cwd", () => {
    expect(commandDir("cd packages/x && pnpm test", "/repo")).toBe("/repo/packages/x");
    expect(commandDir("cd /repo/packages/a && cd ../b && tsc", "/repo")).toBe("/repo/packages/b");
    expect(commandDir("pnpm test", "/repo")).toBe("/repo");
    expect(commandDir('cd "my dir" && ls', "/repo")).toBe("/repo");
    expect(commandDir("cd x && ls", undefined)).toBeUndefined();
  });
  it("program, search and test detection", () => {
    expect(programOf("CI=1 npx vitest run")).toBe("vitest");
    expect(programOf("cd a && cd b && grep x")).toBe("grep");
    expect(isSearchCommand('grep -rn "x" src')).toBe(true);
    expect(isSearchCommand("pnpm test | grep FAIL")).toBe(true);
    expect(isSearchCommand("git grep foo")).toBe(true);
    expect(isSearchCommand("pnpm test")).toBe(false);
    expect(isTestCommand("pnpm test")).toBe(true);
    expect(isTestCommand("go test ./...")).toBe(true);
    expect(isTestCommand("cargo build")).toBe(false);
  });
  it("shellWrites reads redirects, sed -i and tee; skips heredoc bodies, quotes, fds and /dev", () => {
    expect(shellWrites("cat > src/a.ts << 'EOF'\nexport const x = 1; // > not.a.file\nEOF\necho done >> log.txt")).toEqual([
      { path: "src/a.ts", mode: "truncate" },
      { path: "log.txt", mode: "append" },
    ]);
    expect(shellWrites("sed -i 's/a/b/' src/b.ts && pnpm test 2>err.log >/dev/null")).toEqual([{ path: "src/b.ts", mode: "in-place" }]);
    expect(shellWrites("pnpm build | tee -a build.log")).toEqual([{ path: "build.log", mode: "append" }]);
    expect(shellWrites('git commit -m "a > b" && echo x >out.txt')).toEqual([{ path: "out.txt", mode: "truncate" }]);
    expect(shellWrites("node x.js > $OUT 2>&1; ls *.ts > list.txt")).toEqual([{ path: "list.txt", mode: "truncate" }]);
    expect(shellWrites("grep -rn 'x' src")).toEqual([]);
  });
  it("shellWrites reads the destination of cp, mv, install and ln", () => {
    expect(shellWrites("cp packages/a/theme/light.json ~/.pi/agent/themes/custom-light.json")).toEqual([{ path: "~/.pi/agent/themes/custom-light.json", mode: "truncate" }]);
    expect(shellWrites("mkdir -p out && cp a.json b/c.json out/")).toEqual([
      { path: "out/a.json", mode: "truncate" },
      { path: "out/c.json", mode: "truncate" },
    ]);
    expect(shellWrites("mv -f old.ts new.ts")).toEqual([{ path: "new.ts", mode: "truncate" }]);
    expect(shellWrites("cp -r src dist")).toEqual([]);
    expect(shellWrites("cp onlyone")).toEqual([]);
    expect(shellWrites("cp $(npm root -g)/x/dark.json $HOME/x.json")).toEqual([]);
  });
  it("adversarial: 1 MB commands", { timeout: LINEAR_TIME_MS }, () => {
    expect(commandKey(`cd ${" ".repeat(MB)}`).length).toBeLessThanOrEqual(2000);
    expect(commandKey(`cd ${"a".repeat(MB)} &&`).length).toBeLessThanOrEqual(2000);
    expect(commandKey(`x ${"| tail ".repeat(MB / 7)}`).length).toBeLessThanOrEqual(2000);
    expect(isSearchCommand("grep".repeat(MB / 4))).toBe(false);
    expect(shellWrites(">".repeat(MB))).toEqual([]);
    expect(shellWrites(`cat <<EOF\n${"x\n".repeat(MB / 2)}`)).toEqual([]);
    expect(shellWrites(`sed -i ${"'".repeat(MB)}`)).toEqual([]);
  });
});

describe("printsFileContent", () => {
  it("knows the commands that print one file", () => {
    for (const c of ["cat package.json", "sed -n '765,800p' /repo/README.md", "head -50 src/a.ts", "cd pkg && tail -n 20 log.txt", 'grep -A 30 "### Custom Tools" README.md', "grep -n -e foo -e bar src/a.ts", "cat package.json | grep -A 5 scripts"])
      expect(printsFileContent(c), c).toBe(true);
  });

  it("leaves searches that name files, writes and other programs alone", () => {
    for (const c of ['grep -rn "x" src/', "grep -l foo a.ts b.ts", 'grep "x" a.ts b.ts', "grep foo", "cat > out.txt <<EOF", "cat", "ls -la src", "npm run build", 'grep -H "x" a.ts', "git show HEAD:README.md"])
      expect(printsFileContent(c), c).toBe(false);
  });

  it("adversarial: reads a long command in linear time", { timeout: LINEAR_TIME_MS }, () => {
    expect(printsFileContent(`grep ${"-".repeat(MB)}x a`)).toBe(false);
    expect(printsFileContent(`cat ${"'a".repeat(MB / 2)}`)).toBe(true);
  });
});

describe("user text", () => {
  it("corrections: redirects at the start or 'instead of' / 'don't use' anywhere near it", () => {
    for (const t of [
      "no, that's not it",
      "No, actually keep the old signature.",
      "actually, it's the bg color",
      "Stop. Revert that.",
      "don't touch the lockfile",
      "Instead, use the reader we already have.",
      "ok, wait — the cursor is per shard",
      "Hmm, use a plain array instead of a Map here",
      "that's not what I asked for",
    ])
      expect(isCorrection(t), t).toBe(true);
    for (const t of ["Now wire it into the CLI", "nothing else changed, thanks", "Always use named exports", "notable: the offsets"])
      expect(isCorrection(t), t).toBe(false);
  });
  it("scope changes", () => {
    expect(isScopeChange("Also update the session token refresh logic")).toBe(true);
    expect(isScopeChange("Ok, now we need to adjust the light theme")).toBe(true);
    expect(isScopeChange("Let's move on to the cursor part.")).toBe(true);
    expect(isScopeChange("why is this slow?")).toBe(false);
  });
  it("preferences by sentence", () => {
    expect(
      preferenceSentences("Thanks. Always run tsc before committing! I don't know why. Please, don't add deps. Prefer unknown over any."),
    ).toEqual(["Always run tsc before committing!", "Please, don't add deps.", "Prefer unknown over any."]);
  });
  it("blockers and next steps", () => {
    expect(blockerLine("ok\nthe build is still failing on CI\nthanks")).toBe("the build is still failing on CI");
    expect(blockerLine("works great")).toBeNull();
    expect(blockerLine("Run every suite once more and list what is still failing.")).toBeNull();
    expect(nextSteps("Done.\nNext, I'll wire the CLI.\n- unrelated bullet")).toEqual(["Next, I'll wire the CLI."]);
    expect(nextSteps("Remaining:\n- tests for go\n- docs\nok")).toEqual(["tests for go", "docs"]);
  });
  it("adversarial: 1 MB messages", { timeout: LINEAR_TIME_MS }, () => {
    for (const ch of ["a", " ", ".", "n", "\n", "'"]) {
      const t = ch.repeat(MB);
      expect(isCorrection(t)).toBe(false);
      expect(isScopeChange(t)).toBe(false);
      expect(preferenceSentences(t)).toEqual([]);
      expect(blockerLine(t)).toBeNull();
      expect(nextSteps(t)).toEqual([]);
    }
    expect(preferenceSentences(`use ${"x".repeat(MB)} instead`)).toEqual([]);
  });
});
