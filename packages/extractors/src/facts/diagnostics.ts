// Diagnostics read line by line from shell output: tsc, other compilers, failing tests (vitest, jest,
// pytest, go test, cargo test), and the exit code Pi appends. Each pattern is anchored at a line start.

import { clipLine, errorLines } from "../lexicon/errors.js";

export type DiagnosticKind = "tsc" | "compiler" | "tests";

export interface Diagnostic {
  readonly kind: DiagnosticKind;
  /** The line as printed (clipped to 240 chars). */
  readonly text: string;
  readonly file?: string;
  readonly errorId?: string;
  /** Stable part for deduplication (no line/column, which shift as code changes). */
  readonly key: string;
}

// src/a.ts(12,5): error TS2322: Type …
const TSC_PAREN = /^([^\s(][^(\n]{0,400})\((\d{1,7}),(\d{1,7})\): error (TS\d{1,6}): ([^\n]{0,400})/;
// src/a.ts:12:5 - error TS2322: Type …   (tsc --pretty)
const TSC_PRETTY = /^([^\s:][^:\n]{0,400}):(\d{1,7}):(\d{1,7}) - error (TS\d{1,6}): ([^\n]{0,400})/;
// gcc / clang / zig / go vet style: file:line:col: error: message
const CC_ERROR = /^([^\s:][^:\n]{0,400}):(\d{1,7}):(?:\d{1,7}:)? (?:fatal )?error: ([^\n]{0,400})/;
// go build: ./main.go:12:5: undefined: foo
const GO_ERROR = /^([^\s:][^:\n]{0,400}\.go):(\d{1,7}):(\d{1,7}): ([^\n]{0,400})/;
// rustc: error[E0308]: mismatched types   then   --> src/main.rs:3:5
const RUST_ERROR = /^error(?:\[(E\d{1,5})\])?: ([^\n]{0,400})/;
const RUST_ARROW = /^\s{0,20}--> ([^\s:][^:\n]{0,400}):(\d{1,7})/;
// vitest / jest: " FAIL  src/a.test.ts > suite > name"
const JS_FAIL = /^ {0,4}FAIL {1,4}(\S{1,400})(?:\s{1,4}>\s{1,4}([^\n]{0,400}))?/;
// jest: "  ● suite › name"
const JEST_BULLET = /^\s{0,8}● ([^\n]{1,400})/;
// pytest: "FAILED tests/test_a.py::test_x - AssertionError"
const PYTEST_FAILED = /^FAILED (\S{1,400})/;
// go test: "--- FAIL: TestName (0.00s)"
const GO_FAIL = /^\s{0,20}--- FAIL: (\S{1,400})/;
// cargo test: "test module::name ... FAILED"
const CARGO_FAILED = /^test (\S{1,400}) \.\.\. FAILED/;

const PI_EXIT = /Command exited with code (\d{1,4})\s*$/;
const PI_TIMEOUT = /Command (?:timed out|aborted)[^\n]{0,200}\s*$/;

/** Pi's bash tool appends "Command exited with code N"; returns N (or null when not present). */
export function trailingExitCode(output: string): number | null {
  const tail = output.length > 400 ? output.slice(-400) : output;
  const m = PI_EXIT.exec(tail);
  if (m !== null) return Number(m[1]);
  return PI_TIMEOUT.test(tail) ? 124 : null;
}

function testFile(spec: string): string | undefined {
  const cut = spec.indexOf("::");
  const file = cut >= 0 ? spec.slice(0, cut) : spec;
  return /\.[A-Za-z]{1,5}$/.test(file) ? file : undefined;
}

const MAX_SCAN = 512 * 1024;
const CARGO_PANIC = /^thread '([^'\n]{1,300})' panicked at ([^\n]{0,300})/;

/** Lines after position `from` (the end of a line), at most `reach` of them, each clipped to 1,200 chars. */
function linesAfter(src: string, from: number, reach: number): string[] {
  const out: string[] = [];
  let pos = from + 1;
  while (out.length < reach && pos <= src.length && from < src.length) {
    let nl = src.indexOf("\n", pos);
    if (nl < 0) nl = src.length;
    const l = src.slice(pos, Math.min(nl, pos + 1200));
    out.push(l.endsWith("\r") ? l.slice(0, -1) : l);
    if (nl >= src.length) break;
    pos = nl + 1;
  }
  return out;
}

/** The next non-empty line within `reach` lines (the reason printed under a FAIL header). */
function reasonAfter(src: string, lineEnd: number, reach: number): string | undefined {
  for (const raw of linesAfter(src, lineEnd, reach)) {
    const l = raw.trim();
    if (l.length === 0) continue;
    if (l.startsWith("FAIL") || l.startsWith("--- ") || l.startsWith("●") || l.startsWith("⎯")) return undefined;
    return l;
  }
  return undefined;
}

function withReason(head: string, reason: string | undefined): string {
  return clipLine(reason !== undefined ? `${head.trim()} — ${reason}` : head.trim(), 400);
}

// Lines worth trying the patterns on: every pattern needs one of these literals. One global scan finds
// them, so plain output (logs, grep hits, file dumps) costs one regex pass, not ten per line.
const CANDIDATE = /error|FAIL|●|\.go:\d|thread '/g;

/** Every diagnostic in a shell command's output, in order (duplicates by key merged). */
export function parseDiagnostics(output: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const at = new Map<string, number>();
  const push = (d: Diagnostic): void => {
    if (at.has(d.key)) return;
    at.set(d.key, out.length);
    out.push(d);
  };
  const src = output.length > MAX_SCAN ? output.slice(0, MAX_SCAN) : output;
  // Most output has none of the literals at all; indexOf is far cheaper than the alternation.
  if (
    src.indexOf("error") < 0 &&
    src.indexOf("FAIL") < 0 &&
    src.indexOf("●") < 0 &&
    src.indexOf(".go:") < 0 &&
    src.indexOf("thread '") < 0
  ) {
    return out;
  }
  const re = new RegExp(CANDIDATE.source, "g");
  let hit: RegExpExecArray | null;
  while ((hit = re.exec(src)) !== null) {
    const start = src.lastIndexOf("\n", hit.index) + 1;
    let end = src.indexOf("\n", hit.index);
    if (end < 0) end = src.length;
    const raw0 = src.slice(start, Math.min(end, start + 1200));
    const line = raw0.endsWith("\r") ? raw0.slice(0, -1) : raw0;
    scanLine(line, raw0, src, end, push, at, out);
    if (end >= src.length) break;
    re.lastIndex = end + 1;
  }
  return out;
}

function scanLine(
  line: string,
  raw0: string,
  src: string,
  end: number,
  push: (d: Diagnostic) => void,
  at: Map<string, number>,
  out: Diagnostic[],
): void {
  let m: RegExpExecArray | null;
  if ((m = TSC_PAREN.exec(line) ?? TSC_PRETTY.exec(line)) !== null) {
    const file = (m[1] ?? "").trim();
    const id = m[4] ?? "";
    push({ kind: "tsc", text: clipLine(line.trim()), file, errorId: id, key: `tsc|${file}|${id}|${m[5] ?? ""}` });
    return;
  }
  if ((m = CC_ERROR.exec(line)) !== null) {
    const file = m[1] ?? "";
    push({ kind: "compiler", text: clipLine(line.trim()), file, key: `compiler|${file}|${m[3] ?? ""}` });
    return;
  }
  if ((m = RUST_ERROR.exec(line)) !== null) {
    const text = line.trim();
    if (text.startsWith("error: could not compile") || text.startsWith("error: aborting")) return;
    const id = m[1];
    // rustc prints where on one of the next lines: "  --> src/main.rs:3:5".
    for (const next of linesAfter(src, end, 4)) {
      const a = RUST_ARROW.exec(next);
      if (a === null) continue;
      const file = a[1] ?? "";
      push({
        kind: "compiler",
        text: clipLine(`${text} --> ${file}:${a[2] ?? ""}`),
        file,
        ...(id !== undefined ? { errorId: id } : {}),
        key: `compiler|${file}|${id ?? ""}|${text}`,
      });
      return;
    }
    push({ kind: "compiler", text: clipLine(text), ...(id !== undefined ? { errorId: id } : {}), key: `compiler||${id ?? ""}|${text}` });
    return;
  }
  if ((m = JS_FAIL.exec(line)) !== null) {
    const file = testFile(m[1] ?? "");
    push({
      kind: "tests",
      text: withReason(line, m[2] !== undefined ? reasonAfter(src, end, 3) : undefined),
      ...(file !== undefined ? { file } : {}),
      key: `tests|${m[1] ?? ""}|${m[2] ?? ""}`,
    });
    return;
  }
  if ((m = PYTEST_FAILED.exec(line)) !== null) {
    const file = testFile(m[1] ?? "");
    push({ kind: "tests", text: clipLine(line.trim(), 400), ...(file !== undefined ? { file } : {}), key: `tests|${m[1] ?? ""}` });
    return;
  }
  if ((m = GO_FAIL.exec(line)) !== null) {
    push({ kind: "tests", text: withReason(line, reasonAfter(src, end, 2)), key: `tests|${m[1] ?? ""}` });
    return;
  }
  if ((m = CARGO_FAILED.exec(line)) !== null) {
    push({ kind: "tests", text: clipLine(line.trim()), key: `tests|${m[1] ?? ""}` });
    return;
  }
  if ((m = CARGO_PANIC.exec(line)) !== null) {
    // The panic names the failing test and where: fold it into that test's "... FAILED" line.
    const key = `tests|${m[1] ?? ""}`;
    const pos = at.get(key);
    const prev = pos !== undefined ? out[pos] : undefined;
    if (pos !== undefined && prev !== undefined) out[pos] = { ...prev, text: withReason(prev.text, line.trim()) };
    else push({ kind: "tests", text: clipLine(line.trim(), 400), key });
    return;
  }
  if ((m = GO_ERROR.exec(line)) !== null) {
    // Indented "x_test.go:12: …" lines are go test's reasons, already folded into "--- FAIL".
    if (raw0.startsWith(" ") || raw0.startsWith("\t")) return;
    const file = m[1] ?? "";
    push({ kind: "compiler", text: clipLine(line.trim()), file, key: `compiler|${file}|${m[4] ?? ""}` });
    return;
  }
  if ((m = JEST_BULLET.exec(line)) !== null) {
    push({ kind: "tests", text: withReason(line, reasonAfter(src, end, 3)), key: `tests|●|${m[1] ?? ""}` });
  }
}

const TESTS_FAILED_COUNT =
  /(?:^|\s)(?:Tests?:?\s{1,10})?(\d{1,7}) (?:tests? )?failed\b|FAILED \((?:failures|errors)=(\d{1,7})/;

const GIST_NOUN: Readonly<Record<DiagnosticKind, [string, string]>> = {
  tsc: ["tsc error", "tsc errors"],
  compiler: ["compiler error", "compiler errors"],
  tests: ["failing test", "failing tests"],
};

/** "2 tsc errors, 1 failing test": what a run's diagnostics add up to. */
export function diagnosticsGist(diagnostics: readonly Diagnostic[]): string {
  const counts = new Map<DiagnosticKind, number>();
  for (const d of diagnostics) counts.set(d.kind, (counts.get(d.kind) ?? 0) + 1);
  const parts: string[] = [];
  for (const [kind, n] of counts) {
    const [one, many] = GIST_NOUN[kind];
    parts.push(`${n} ${n === 1 ? one : many}`);
  }
  return parts.join(", ");
}

/**
 * A one-line gist of a failed command's output: "3 tests failed", else the first error line from the
 * lexicon, else the last non-empty line (Pi's "Command exited" trailer skipped).
 */
export function failureGist(output: string): string {
  const scan = output.length > MAX_SCAN ? output.slice(-MAX_SCAN) : output;
  const lines = scan.split("\n");
  for (let i = lines.length - 1; i >= 0 && i >= lines.length - 60; i--) {
    const l = lines[i] ?? "";
    if (l.length > 600) continue;
    const m = TESTS_FAILED_COUNT.exec(l);
    if (m !== null) return `${m[1] ?? m[2] ?? ""} tests failed`;
  }
  const errs = errorLines(scan.length > 64 * 1024 ? scan.slice(0, 64 * 1024) : scan).filter(
    (l) => !PI_EXIT.test(l),
  );
  // Prefer a message-sized line: the first error line of a Node crash is often a minified source line.
  const readable = errs.find((l) => l.trim().length <= 160);
  if (readable !== undefined) return readable.trim();
  if (errs.length > 0) return clipLine((errs[0] ?? "").trim(), 160);
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = (lines[i] ?? "").trim();
    if (l.length === 0 || PI_EXIT.test(l) || l === "(no output)") continue;
    return clipLine(l);
  }
  return "";
}
