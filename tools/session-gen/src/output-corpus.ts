// Text of tool outputs: test runners (vitest, jest, pytest, go test, cargo) and tsc, passing and
// failing, plus git, grep and build logs — the long, noisy outputs real sessions are full of.
import { camel, noun, pascal, snake } from "./code-corpus.js";
import type { SeededRandom } from "./random.js";

export type Runner = "vitest" | "jest" | "pytest" | "go" | "cargo" | "tsc";

export const RUNNER_COMMANDS: Readonly<Record<Runner, string>> = {
  vitest: "pnpm exec vitest run",
  jest: "npx jest --ci",
  pytest: "python -m pytest -q",
  go: "go test ./...",
  cargo: "cargo test --workspace",
  tsc: "pnpm exec tsc -b",
};

/** A failure a runner reports; `line` is the exact line that names it (what a summary must keep). */
export interface Failure {
  readonly runner: Runner;
  readonly line: string;
  readonly context: readonly string[];
}

export function makeFailure(rng: SeededRandom, runner: Runner): Failure {
  const a = rng.int(100, 99999);
  const b = a + rng.int(1, 40);
  switch (runner) {
    case "vitest":
    case "jest": {
      const file = runner === "vitest" ? `test/${noun(rng)}.test.ts` : `src/__tests__/${noun(rng)}.spec.ts`;
      const name = `${camel(rng)} keeps ${noun(rng)} order after ${rng.pick(["a torn line", "a retry", "compaction", "a rename", "an empty batch"])}`;
      const line = `AssertionError: expected ${a} to be ${b} // Object.is equality (${name})`;
      return {
        runner,
        line,
        context: [
          ` FAIL  ${file} > ${name}`,
          line,
          ``,
          `- Expected`,
          `+ Received`,
          ``,
          `- ${b}`,
          `+ ${a}`,
          ``,
          ` ❯ ${file}:${rng.int(10, 300)}:${rng.int(5, 40)}`,
        ],
      };
    }
    case "pytest": {
      const test = `test_${snake(rng)}_${rng.int(1, 9)}`;
      const key = `${noun(rng)}_id`;
      const line = `FAILED tests/test_${noun(rng)}.py::${test} - KeyError: '${key}' (row ${a})`;
      return {
        runner,
        line,
        context: [
          `________________________________ ${test} ________________________________`,
          ``,
          `    def ${test}():`,
          `        rows = load_fixture("${noun(rng)}s.json")`,
          `>       assert merge_rows(rows)[${rng.int(0, 9)}]["${key}"] == ${b}`,
          `E       KeyError: '${key}'`,
          ``,
          line,
        ],
      };
    }
    case "go": {
      const test = `Test${pascal(rng)}`;
      const line = `    ${noun(rng)}_test.go:${rng.int(20, 400)}: ${test}: got ${a} ${noun(rng)}s, want ${b}`;
      return { runner, line, context: [`--- FAIL: ${test} (0.0${rng.int(1, 9)}s)`, line, `FAIL`, `FAIL\tgithub.com/acme/foldd/internal/shard\t0.${rng.int(100, 999)}s`] };
    }
    case "cargo": {
      const test = `${noun(rng)}::tests::${snake(rng)}`;
      const line = `thread '${test}' panicked at crates/hasher/src/${noun(rng)}.rs:${rng.int(20, 500)}:${rng.int(5, 30)}:`;
      return {
        runner,
        line,
        context: [`---- ${test} stdout ----`, line, `assertion \`left == right\` failed`, `  left: ${a}`, ` right: ${b}`, `note: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace`],
      };
    }
    case "tsc": {
      const line = `src/${noun(rng)}/${noun(rng)}.ts(${rng.int(5, 400)},${rng.int(3, 60)}): error TS2322: Type '${pascal(rng)} | undefined' is not assignable to type '${pascal(rng)}'.`;
      return { runner, line, context: [line] };
    }
  }
}

function ms(rng: SeededRandom): number {
  return rng.int(1, 180);
}

/** The output of one test/compile run with `passing` green tests and the given failures. */
export function runnerOutput(rng: SeededRandom, runner: Runner, passing: number, failures: readonly Failure[]): string {
  const lines: string[] = [];
  const failed = failures.length;
  switch (runner) {
    case "vitest":
    case "jest": {
      if (runner === "vitest") lines.push(``, ` RUN  v4.1.12 /home/dev/project`, ``);
      for (let i = 0; i < passing; i++) {
        const file = runner === "vitest" ? `test/${noun(rng)}.test.ts` : `src/__tests__/${noun(rng)}.spec.ts`;
        lines.push(runner === "vitest" ? ` ✓ ${file} > ${camel(rng)} > ${rng.pick(["handles", "rejects", "keeps", "merges", "skips"])} ${noun(rng)}s ${ms(rng)}ms` : `PASS ${file}\n  ✓ ${camel(rng)} ${rng.pick(["handles", "rejects", "keeps"])} ${noun(rng)}s (${ms(rng)} ms)`);
      }
      for (const f of failures) lines.push(``, ...f.context);
      lines.push(``);
      if (runner === "vitest") {
        lines.push(` Test Files  ${failed > 0 ? `${failed} failed | ` : ""}${Math.max(1, Math.ceil(passing / 6))} passed (${Math.ceil(passing / 6) + failed})`);
        lines.push(`      Tests  ${failed > 0 ? `${failed} failed | ` : ""}${passing} passed (${passing + failed})`);
        lines.push(`   Start at  09:${String(rng.int(10, 59))}:${String(rng.int(10, 59))}`, `   Duration  ${rng.int(1, 9)}.${rng.int(10, 99)}s`);
      } else {
        lines.push(`Tests:       ${failed > 0 ? `${failed} failed, ` : ""}${passing} passed, ${passing + failed} total`, `Time:        ${rng.int(1, 9)}.${rng.int(100, 999)} s`, `Ran all test suites.`);
      }
      break;
    }
    case "pytest": {
      let dots = "";
      for (let i = 0; i < passing; i++) dots += ".";
      for (let i = 0; i < dots.length; i += 60) lines.push(`${dots.slice(i, i + 60)} [${Math.min(100, Math.round(((i + 60) / Math.max(1, passing)) * 100))}%]`);
      if (failed > 0) {
        lines.push(`=================================== FAILURES ===================================`);
        for (const f of failures) lines.push(...f.context.filter((l) => l !== f.line));
        lines.push(`=========================== short test summary info ============================`);
        for (const f of failures) lines.push(f.line);
      }
      lines.push(`${failed > 0 ? `${failed} failed, ` : ""}${passing} passed in ${rng.int(0, 9)}.${rng.int(10, 99)}s`);
      break;
    }
    case "go": {
      const pkgs = ["internal/shard", "internal/ledger", "cmd/indexer", "internal/fold", "internal/recall"];
      for (let i = 0; i < passing; i++) lines.push(`=== RUN   Test${pascal(rng)}`, `--- PASS: Test${pascal(rng)} (0.0${rng.int(0, 9)}s)`);
      for (const f of failures) lines.push(...f.context);
      for (const p of pkgs) lines.push(`ok  \tgithub.com/acme/foldd/${p}\t0.${rng.int(100, 999)}s`);
      break;
    }
    case "cargo": {
      lines.push(`   Compiling hasher v0.3.${rng.int(0, 9)} (/home/dev/project/crates/hasher)`, `    Finished \`test\` profile [unoptimized + debuginfo] target(s) in ${rng.int(1, 30)}.${rng.int(10, 99)}s`, `     Running unittests src/lib.rs (target/debug/deps/hasher-${rng.hex(16)})`, ``, `running ${passing + failed} tests`);
      for (let i = 0; i < passing; i++) lines.push(`test ${noun(rng)}::tests::${snake(rng)} ... ok`);
      for (const f of failures) lines.push(`test ${f.line.split("'")[1] ?? "x"} ... FAILED`);
      if (failed > 0) {
        lines.push(``, `failures:`, ``);
        for (const f of failures) lines.push(...f.context, ``);
      }
      lines.push(`test result: ${failed > 0 ? "FAILED" : "ok"}. ${passing} passed; ${failed} failed; 0 ignored; 0 measured; 0 filtered out; finished in ${rng.int(0, 9)}.${rng.int(10, 99)}s`);
      break;
    }
    case "tsc": {
      for (const f of failures) lines.push(...f.context);
      if (failed > 0) lines.push(``, `Found ${failed} error${failed === 1 ? "" : "s"} in ${failed} file${failed === 1 ? "" : "s"}.`);
      break;
    }
  }
  return lines.join("\n");
}

/** `grep -rn` over the project: `count` matching lines. */
export function grepOutput(rng: SeededRandom, pattern: string, count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) {
    const file = `src/${noun(rng)}/${noun(rng)}.ts`;
    lines.push(`${file}:${rng.int(1, 900)}:  const ${camel(rng)} = ${pattern}(${noun(rng)}, { ${noun(rng)}: ${rng.int(0, 512)} });`);
  }
  return lines.join("\n");
}

/** A long build/server log. */
export function buildLog(rng: SeededRandom, count: number): string {
  const lines: string[] = [];
  let t = rng.int(0, 3600) * 1000;
  for (let i = 0; i < count; i++) {
    t += rng.int(1, 900);
    const level = rng.pick(["INFO", "INFO", "INFO", "DEBUG", "WARN"]);
    lines.push(`${String(Math.floor(t / 1000)).padStart(5, "0")}.${String(t % 1000).padStart(3, "0")} ${level} [${noun(rng)}] ${rng.pick(["flushed", "loaded", "rotated", "scanned", "merged", "verified"])} ${rng.int(1, 50000)} ${noun(rng)}s in ${rng.int(1, 999)}ms (shard=${rng.int(0, 31)})`);
  }
  return lines.join("\n");
}

export function gitStatus(rng: SeededRandom, files: readonly string[]): string {
  const lines = [`On branch main`, `Changes not staged for commit:`, `  (use "git add <file>..." to update what will be committed)`];
  for (const f of files) lines.push(`\tmodified:   ${f}`);
  if (rng.chance(0.4)) lines.push(``, `Untracked files:`, `\tnotes/${noun(rng)}.md`);
  return lines.join("\n");
}

export function gitLog(rng: SeededRandom, count: number): string {
  const lines: string[] = [];
  for (let i = 0; i < count; i++) lines.push(`${rng.hex(7)} ${rng.pick(["fix", "feat", "chore", "refactor", "test"])}: ${rng.pick(["handle", "tighten", "speed up", "document", "drop"])} ${noun(rng)} ${noun(rng)}`);
  return lines.join("\n");
}

/** Inserts `needle` as its own line at the middle of `text` (deep inside, where summaries lose it). */
export function insertDeep(text: string, needle: string, rng: SeededRandom): string {
  const lines = text.split("\n");
  const at = Math.floor(lines.length * (0.35 + rng.next() * 0.3));
  lines.splice(at, 0, needle);
  return lines.join("\n");
}
