// Shell command helpers: a stable key for "the same command" and which program a command runs.

import { posix } from "node:path";

const LEADING_CD = /^cd\s+[^&;|\n]{1,500}?\s*&&\s*/;
/** A leading `cd <dir>` step ended by `&&`, `;` or a newline (a script's first line): where what follows runs. */
const LEADING_CD_STEP = /^cd\s+([^&;|\n]{1,500}?)\s*(?:&&|;|\n)\s*/;
const TRAILING_PIPE_FILTER = /\s*\|\s*(?:tail|head)(?:\s+-[\w-]{1,10}(?:\s+\d{1,9})?)?\s*$/;
const REDIRECT_2_1 = /\s*2>&1/g;
const SPACES = /\s+/g;

/**
 * The key under which two runs count as "the same command": `2>&1` and a trailing `| tail`/`| head` are
 * dropped and whitespace is collapsed. A leading `cd <dir> &&` stays part of the key (the same command in
 * another directory is another command) unless `<dir>` is the session's cwd. Input is clipped to 2,000 chars.
 */
export function commandKey(command: string, cwd?: string): string {
  let c = command.length > 2000 ? command.slice(0, 2000) : command;
  c = c.trim();
  if (cwd !== undefined) {
    const m = LEADING_CD.exec(c);
    if (m !== null) {
      const dir = m[0].slice(2).replace(/&&\s*$/, "").trim().replace(/\/+$/, "");
      if (dir === cwd.replace(/\/+$/, "") || dir === ".") c = c.slice(m[0].length);
    }
  }
  c = c.replace(REDIRECT_2_1, "");
  for (let i = 0; i < 3; i++) {
    const next = c.replace(TRAILING_PIPE_FILTER, "");
    if (next === c) break;
    c = next;
  }
  return c.replace(SPACES, " ").trim();
}

/**
 * The directory a command runs in: the session cwd, moved by leading `cd <dir> &&` (or `;`, or newline) steps (quotes and a
 * `~` are left alone: such a dir is returned unresolved only when absolute). Undefined without a cwd.
 */
export function commandDir(command: string, cwd: string | undefined): string | undefined {
  if (cwd === undefined || !cwd.startsWith("/")) return cwd;
  let dir = cwd;
  let c = command.length > 2000 ? command.slice(0, 2000).trim() : command.trim();
  for (let i = 0; i < 3; i++) {
    const m = LEADING_CD_STEP.exec(c);
    if (m === null) break;
    const target = (m[1] ?? "").trim();
    if (target.length === 0 || target.startsWith("~") || target.startsWith("$") || target.includes("'") || target.includes('"')) break;
    dir = posix.resolve(dir, target);
    c = c.slice(m[0].length);
  }
  return dir;
}

/** The command without its leading `cd … &&` steps (normalized like commandKey). */
export function withoutLeadingCd(command: string): string {
  let c = commandKey(command);
  for (let i = 0; i < 3; i++) {
    const m = LEADING_CD.exec(c);
    if (m === null) break;
    c = c.slice(m[0].length);
  }
  return c;
}

/** The first program a command runs (after `cd … &&`, env assignments, `sudo`, `npx`). */
export function programOf(command: string): string {
  const words = withoutLeadingCd(command).split(" ");
  let i = 0;
  while (i < words.length) {
    const w = words[i] ?? "";
    if (w.includes("=") && !w.startsWith("-") || w === "sudo" || w === "npx" || w === "time" || w === "env") {
      i++;
      continue;
    }
    return w;
  }
  return "";
}

const SEARCH_PROGRAMS = new Set(["grep", "rg", "ag", "ack", "find", "fd", "egrep", "fgrep", "locate"]);

/** A search whose "nothing found" exit is not an error (grep exits 1 on no match). */
export function isSearchCommand(command: string): boolean {
  const key = withoutLeadingCd(command);
  if (key.startsWith("git grep")) return true;
  // A pipeline ending in grep also exits 1 on no match.
  const lastPipe = key.lastIndexOf("| ");
  const tail = lastPipe >= 0 ? key.slice(lastPipe + 2) : key;
  return SEARCH_PROGRAMS.has(programOf(tail)) || SEARCH_PROGRAMS.has(programOf(key));
}

/**
 * The statements of a command line, each as its pipeline stages: split at top-level `;`, `&&`, `||` and
 * newlines, then at top-level `|`. Quotes and backslash escapes are respected (a `"a|b"` pattern is one
 * word); empty statements and stages are left out. One linear walk.
 */
export function statementStages(command: string): string[][] {
  const src = command;
  const statements: string[][] = [];
  let stages: string[] = [];
  let quote = 0;
  let start = 0;
  // Inside `$( … )` (nesting counted) or backticks, separators belong to the substituted command.
  let depth = 0;
  let tick = false;
  const endStage = (at: number): void => {
    const stage = src.slice(start, at).trim();
    if (stage.length > 0) stages.push(stage);
  };
  for (let i = 0; i < src.length; i++) {
    const c = src.charCodeAt(i);
    if (c === 92 /* backslash */ && quote !== 39) {
      i++;
      continue;
    }
    if (quote !== 0) {
      if (c === quote) quote = 0;
      continue;
    }
    if (c === 39 /* ' */ || c === 34 /* " */) {
      quote = c;
      continue;
    }
    const next = src.charCodeAt(i + 1);
    if (c === 96 /* ` */) tick = !tick;
    else if (c === 36 /* $ */ && next === 40 /* ( */) {
      depth++;
      i++;
    } else if (c === 41 /* ) */ && depth > 0) depth--;
    if (depth > 0 || tick) continue;
    if (c === 59 /* ; */ || c === 10 /* newline */ || (c === 38 /* & */ && next === 38) || (c === 124 /* | */ && next === 124)) {
      endStage(i);
      if (stages.length > 0) statements.push(stages);
      stages = [];
      if (c === 38 || c === 124) i++;
      start = i + 1;
      continue;
    }
    if (c === 124 /* | */) {
      endStage(i);
      start = i + 1;
    }
  }
  endStage(src.length);
  if (stages.length > 0) statements.push(stages);
  return statements;
}

/**
 * The pipeline stages of a command line's last statement (`statementStages`' last), so the exit status of
 * the whole line is that statement's. The last 20,000 characters are read.
 */
export function lastStatementStages(command: string): string[] {
  const statements = statementStages(command.length > 20_000 ? command.slice(-20_000) : command);
  return statements[statements.length - 1] ?? [];
}

/** Programs whose failure says "no such path" when their operands are missing. */
const PATH_CHECKS = new Set(["ls", "stat", "test", "["]);

/** The operands of a simple command's words: no flags, redirections, `]`, or the program itself. */
function pathOperands(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const w of words.slice(1)) {
    if (w.startsWith("-") || w.includes(">") || w.includes("<") || w === "]" || w === "!") continue;
    out.push(w.length >= 2 && (w[0] === "'" || w[0] === '"') && w[w.length - 1] === w[0] ? w.slice(1, -1) : w);
  }
  return out;
}

/** Does `name` match the shell glob `pattern` (`*`, `?`; no classes)? Iterative, O(|pattern|·|name|) at worst. */
function globMatches(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    const pc = pattern[p];
    if (pc !== undefined && pc !== "*" && (pc === "?" ? name[n] !== "/" : pc === name[n])) {
      p++;
      n++;
    } else if (pc === "*") {
      star = p++;
      mark = n;
    } else if (star >= 0 && name[mark] !== "/") {
      p = star + 1;
      n = ++mark;
    } else return false;
  }
  while (pattern[p] === "*") p++;
  return p === pattern.length;
}

/**
 * Does the command line end by checking for paths an earlier statement of it removed (`rm -f a b; ls a`,
 * `rm x.html; ls *.html`)? Every operand of the last statement's check (`ls`, `stat`, `test`, `[`) names,
 * or as a glob matches, a path an `rm` before it was given. Its failure is then the check's expected
 * answer ("no such file": the removal worked), not an error of the session.
 */
export function checksRemovedPaths(command: string): boolean {
  if (!command.includes("rm ")) return false;
  const statements = statementStages(command.length > 20_000 ? command.slice(0, 20_000) : command);
  const last = statements[statements.length - 1]?.[0];
  if (last === undefined) return false;
  const checkWords = withoutLeadingCd(last).split(" ");
  if (!PATH_CHECKS.has(checkWords[0] ?? "")) return false;
  const checked = pathOperands(checkWords);
  if (checked.length === 0) return false;
  const removed: string[] = [];
  for (const stages of statements.slice(0, -1)) {
    for (const stage of stages) {
      const words = withoutLeadingCd(stage).split(" ");
      if (words[0] === "rm" || (words[0] === "sudo" && words[1] === "rm")) removed.push(...pathOperands(words[0] === "sudo" ? words.slice(1) : words));
    }
  }
  if (removed.length === 0) return false;
  // A checked path is one removed, inside one removed (`rm -rf dist; ls dist/x`), or a glob matching one.
  return checked.every((c) => removed.some((r) => r === c || c.startsWith(`${r.replace(/\/+$/, "")}/`) || globMatches(c, r)));
}

/**
 * Does the command line's last statement run a search (`grep`, `rg`, `git grep`, … in any of its
 * pipeline stages)? Its exit status 1 then says "nothing matched" (grep's, or with `pipefail` the
 * filter's), whatever the statements before it printed.
 */
export function endsInSearch(command: string): boolean {
  for (const stage of lastStatementStages(command)) {
    const program = programOf(stage);
    if (SEARCH_PROGRAMS.has(program)) return true;
    if (program === "git") {
      const words = withoutLeadingCd(stage).split(" ");
      if (words[words.indexOf("git") + 1] === "grep") return true;
    }
  }
  return false;
}

const TEST_COMMAND =
  /\b(?:vitest|jest|pytest|mocha|ava|(?:npm|pnpm|yarn|bun)(?: run)? test|go test|cargo test|mix test|rspec|rake test|zig build test|ctest|phpunit|tap)\b/;

/** Does the command run a test suite? */
export function isTestCommand(command: string): boolean {
  return TEST_COMMAND.test(command.length > 2000 ? command.slice(0, 2000) : command);
}

/** Short display form: first line, at most `max` chars. */
export function shortCommand(command: string, max = 120): string {
  const nl = command.indexOf("\n");
  const first = (nl >= 0 ? command.slice(0, nl) + " …" : command).trim();
  return first.length > max ? first.slice(0, max - 1) + "…" : first;
}

export interface ShellWrite {
  readonly path: string;
  /**
   * ">" truncates (a new file when never seen), ">>", "sed -i" and "tee -a" change one in place, a
   * non-recursive `rm` removes one (a change of the working tree too).
   */
  readonly mode: "truncate" | "append" | "in-place" | "remove";
}

const HEREDOC = /<<-?\s{0,4}['"]?([A-Za-z_][\w]{0,40})['"]?/;

function unquote(token: string): string | null {
  let t = token;
  if ((t.startsWith("'") && t.endsWith("'")) || (t.startsWith('"') && t.endsWith('"'))) t = t.slice(1, -1);
  if (t.length === 0 || t.length > 1000 || /[$*?`'"(){}<>]/.test(t) || t.startsWith("-") || t.startsWith("&")) return null;
  if (t === "/dev/null" || t.startsWith("/dev/") || t.startsWith("/proc/")) return null;
  return t;
}

/**
 * The words of one simple command, split at whitespace outside a command substitution (`$( … )`,
 * nesting counted, or backticks), so `cp $(npm root -g)/x/a.json b.json` has three words.
 */
export function shellWords(segment: string): string[] {
  const words: string[] = [];
  let depth = 0;
  let tick = false;
  let start = -1;
  for (let i = 0; i <= segment.length; i++) {
    const c = i < segment.length ? segment.charCodeAt(i) : 32;
    if (c === 96 /* ` */) tick = !tick;
    else if (c === 36 /* $ */ && segment.charCodeAt(i + 1) === 40 /* ( */) {
      depth++;
      if (start < 0) start = i;
      i++;
      continue;
    } else if (c === 41 /* ) */ && depth > 0) depth--;
    const space = c === 32 || c === 9 || c === 10 || c === 13;
    if (space && depth === 0 && !tick) {
      if (start >= 0) words.push(segment.slice(start, i));
      start = -1;
    } else if (start < 0) start = i;
  }
  return words;
}

/** Programs that create or replace their last operand (or files inside it, when it is a directory). */
const COPIERS = new Set(["cp", "mv", "install", "ln"]);

/** `cp a b/` → `b/a`; `cp a b` → `b`; several sources → each inside the destination directory. */
function copyTargets(tokens: readonly string[]): string[] {
  // A recursive copy moves directories, not files.
  const recursive = tokens.some((t) => t === "--recursive" || t === "--archive" || (t.startsWith("-") && !t.startsWith("--") && (t.includes("r") || t.includes("R") || t.includes("a"))));
  if (recursive && tokens[0] === "cp") return [];
  const operands = tokens.slice(1).filter((t) => !t.startsWith("-"));
  if (operands.length < 2) return [];
  const dest = unquote(operands[operands.length - 1] ?? "");
  if (dest === null) return [];
  const sources = operands.slice(0, -1);
  // `.`, `..` and `~` (alone or last) are directories: the copy lands inside them, under its own name.
  const intoDir = dest.endsWith("/") || dest === "." || dest === ".." || dest === "~" || dest.endsWith("/.") || dest.endsWith("/..");
  if (sources.length === 1 && !intoDir) return [dest];
  const out: string[] = [];
  for (const src of sources) {
    const s = unquote(src);
    const name = s === null ? "" : s.slice(s.lastIndexOf("/") + 1);
    if (name !== "") out.push(dest.endsWith("/") ? `${dest.replace(/\/+$/, "")}/${name}` : `${dest}/${name}`);
  }
  return out;
}

/** Does the command text name a program `shellWrites` reads (a cheap test before parsing)? */
export function mayWriteFiles(command: string): boolean {
  return command.includes(">") || command.includes("sed") || command.includes("tee") || command.includes("cp ") || command.includes("mv ") || command.includes("install ") || command.includes("ln ") || command.includes("rm ");
}

/**
 * Files a shell command writes: output redirects (`> f`, `>> f`, `cat > f <<EOF`), `sed -i … f`, `tee [-a] f`,
 * the destination of `cp`/`mv`/`install`/`ln` (inside it when it ends in "/" or takes several sources),
 * the files a non-recursive `rm` removes.
 * Heredoc bodies are skipped; `2>`, `&>` and /dev/* are not files. Conservative by design: a path that
 * cannot be read off the command text (variables, globs, quotes inside) is left out.
 */
export function shellWrites(command: string): ShellWrite[] {
  const out: ShellWrite[] = [];
  const src = command.length > 20_000 ? command.slice(0, 20_000) : command;
  const lines = src.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    const doc = HEREDOC.exec(line);
    for (const segment of statementStages(line).flat()) {
      const tokens = shellWords(segment);
      const first = tokens[0] ?? "";
      if (first === "sed" && tokens.some((t) => t === "-i" || t.startsWith("-i") || t === "--in-place")) {
        const p = unquote(tokens[tokens.length - 1] ?? "");
        if (p !== null && tokens.length >= 3) out.push({ path: p, mode: "in-place" });
        continue;
      }
      if (first === "rm") {
        // Without -r an operand is a file (rm refuses a directory); with it, it may be a directory: left out.
        if (tokens.some((t) => t === "--recursive" || (t.startsWith("-") && !t.startsWith("--") && /[rR]/.test(t)))) continue;
        for (const t of tokens.slice(1)) {
          const p = unquote(t);
          if (p !== null) out.push({ path: p, mode: "remove" });
        }
        continue;
      }
      if (COPIERS.has(first)) {
        for (const p of copyTargets(tokens)) out.push({ path: p, mode: "truncate" });
        continue;
      }
      if (first === "tee") {
        const append = tokens.includes("-a") || tokens.includes("--append");
        for (const t of tokens.slice(1)) {
          const p = unquote(t);
          if (p !== null) out.push({ path: p, mode: append ? "append" : "truncate" });
        }
        continue;
      }
      let quote = "";
      for (let k = 0; k < tokens.length; k++) {
        const t = tokens[k] ?? "";
        // Inside a quoted argument (`-m "a > b"`), a `>` is text, not a redirect.
        const inside = quote !== "";
        for (const ch of t) {
          if (quote === "" && (ch === '"' || ch === "'")) quote = ch;
          else if (ch === quote) quote = "";
        }
        if (inside || quote !== "") continue;
        let op: string | null = null;
        let target: string | undefined;
        if (t === ">" || t === ">>") {
          op = t;
          target = tokens[k + 1];
        } else if ((t.startsWith(">>") || t.startsWith(">")) && !t.startsWith(">&")) {
          op = t.startsWith(">>") ? ">>" : ">";
          target = t.slice(op.length);
        }
        if (op === null || target === undefined) continue;
        const prev = k > 0 ? (tokens[k - 1] ?? "") : "";
        if (/^\d$/.test(prev) || prev.endsWith("&")) continue; // `2 > x` style: not stdout
        const p = unquote(target);
        if (p !== null) out.push({ path: p, mode: op === ">>" ? "append" : "truncate" });
      }
    }
    if (doc !== null) {
      // Skip the heredoc body up to its delimiter line.
      const end = doc[1] ?? "";
      while (i + 1 < lines.length && (lines[i + 1] ?? "").trim() !== end) i++;
      i++;
    }
  }
  return out;
}

/** Programs whose output is the content of the files they are given (coreutils and their usual stand-ins). */
const FILE_PRINTERS = new Set(["cat", "head", "tail", "sed", "nl", "less", "more", "bat", "batcat"]);
/** grep long flags that make it print file names or walk directories: its output then names files. */
const GREP_NAMING_LONG = new Set(["--recursive", "--dereference-recursive", "--with-filename", "--files-with-matches", "--files-without-match", "--count"]);
/** Short grep flags (alone or clustered, `-rn`) of the same kind. */
const GREP_NAMING_SHORT = new Set([..."rRHlLc"]);

function grepNamesFiles(word: string): boolean {
  if (word.startsWith("--")) return GREP_NAMING_LONG.has(word.split("=")[0] ?? word);
  if (!word.startsWith("-")) return false;
  for (let i = 1; i < word.length; i++) if (GREP_NAMING_SHORT.has(word[i] ?? "")) return true;
  return false;
}
/** grep flags that take the next word as their value. */
const GREP_VALUE_FLAGS = new Set(["-A", "-B", "-C", "-m", "-e", "-f", "--max-count", "--regexp", "--file", "--context", "--after-context", "--before-context"]);

/** Words of the first simple command (quote-aware; stops at `|`, `;`, `&`, `>` or `<` outside quotes). */
function firstCommandWords(command: string): string[] {
  const words: string[] = [];
  let word = "";
  let quote = "";
  let started = false;
  for (let i = 0; i < command.length && i < 2000; i++) {
    const ch = command[i] ?? "";
    if (quote !== "") {
      if (ch === quote) quote = "";
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      started = true;
      continue;
    }
    if (ch === "|" || ch === ";" || ch === "&" || ch === ">" || ch === "<" || ch === "\n") break;
    if (ch === " " || ch === "\t") {
      if (started) words.push(word);
      word = "";
      started = false;
      continue;
    }
    word += ch;
    started = true;
  }
  if (started) words.push(word);
  return words;
}

/**
 * Does the command print a file's content (`cat f`, `sed -n '1,9p' f`, `head -50 f`, `grep -A 30 "x" f`
 * on one file without naming flags)? Its output's paths are then the file's, not the session's. The
 * first simple command after `cd … &&` decides.
 */
export function printsFileContent(command: string): boolean {
  const words = firstCommandWords(withoutLeadingCdRaw(command));
  let i = 0;
  while (i < words.length && ((words[i] ?? "").includes("=") || words[i] === "sudo" || words[i] === "command")) i++;
  const program = words[i] ?? "";
  const rest = words.slice(i + 1);
  if (FILE_PRINTERS.has(program)) return rest.some((w) => !w.startsWith("-"));
  if (program !== "grep" && program !== "egrep" && program !== "fgrep") return false;
  const operands: string[] = [];
  let patternGiven = false;
  for (let k = 0; k < rest.length; k++) {
    const w = rest[k] ?? "";
    if (grepNamesFiles(w)) return false;
    if (GREP_VALUE_FLAGS.has(w)) {
      if (w === "-e" || w === "--regexp" || w === "-f" || w === "--file") patternGiven = true;
      k++;
      continue;
    }
    if (w.startsWith("-") && w.length > 1) continue;
    operands.push(w);
  }
  const files = patternGiven ? operands : operands.slice(1);
  return files.length === 1 && !(files[0] ?? "").endsWith("/");
}

/** The command text after leading `cd <dir> &&` steps, quotes kept (for quote-aware parsing). */
function withoutLeadingCdRaw(command: string): string {
  let c = command.trim();
  for (let n = 0; n < 3; n++) {
    const m = LEADING_CD.exec(c);
    if (m === null) break;
    c = c.slice(m[0].length);
  }
  return c;
}
