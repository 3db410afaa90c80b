// Symbol names and exact exported signature lines from source text, per language, line by line.
// Every pattern is anchored at a line start with no nested overlapping quantifiers (linear time).

export type SymbolLanguage =
  | "ts"
  | "python"
  | "go"
  | "rust"
  | "java"
  | "c"
  | "zig"
  | "ruby"
  | "elixir";

export interface SymbolScan {
  /** Top-level / exported symbol names in first-seen order, deduplicated. */
  readonly names: string[];
  /** Exact exported signature lines (trimmed, at most 200 chars each), in order, deduplicated. */
  readonly signatures: string[];
}

const EXTENSIONS: Readonly<Record<string, SymbolLanguage>> = {
  ts: "ts", tsx: "ts", mts: "ts", cts: "ts", js: "ts", jsx: "ts", mjs: "ts", cjs: "ts",
  py: "python", pyi: "python",
  go: "go",
  rs: "rust",
  java: "java",
  c: "c", h: "c", cc: "c", cpp: "c", cxx: "c", hpp: "c", hh: "c", hxx: "c",
  zig: "zig",
  rb: "ruby",
  ex: "elixir", exs: "elixir",
};

/** The language of a path by its extension, or null when no extractor handles it. */
export function languageOf(path: string): SymbolLanguage | null {
  const dot = path.lastIndexOf(".");
  if (dot < 0 || dot < path.lastIndexOf("/")) return null;
  return EXTENSIONS[path.slice(dot + 1).toLowerCase()] ?? null;
}

/** Longest text scanned per call: symbols live near the top of what a tool shows; keeps big reads cheap. */
const MAX_SCAN_CHARS = 256 * 1024;
const MAX_SIGNATURE_CHARS = 200;

// TS / JS
const TS_EXPORT =
  /^export\s+(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(function\*?|class|interface|type|(?:const\s+)?enum|const|let|var|namespace)\s+([A-Za-z_$][\w$]*)/;
const TS_LOCAL = /^(?:async\s+)?(?:function\*?|class)\s+([A-Za-z_$][\w$]*)/;
// Python: top level only (no indentation)
const PY_DEF = /^(?:async\s+)?def\s+([A-Za-z_]\w*)/;
const PY_CLASS = /^class\s+([A-Za-z_]\w*)/;
// Methods: named (public ones) so an edited class shows what changed, but not catalogued as signatures.
const PY_METHOD = /^[ \t]{1,16}(?:async\s+)?def\s+([A-Za-z]\w*)/;
// Go: exported (capitalized) names only
const GO_FUNC = /^func\s+(?:\([^)\n]*\)\s*)?([A-Z]\w*)/;
const GO_TYPE = /^type\s+([A-Z]\w*)/;
// Rust
const RUST_PUB =
  /^[ \t]*pub(?:\([\w: ]*\))?\s+(?:async\s+)?(?:unsafe\s+)?(?:const\s+)?(?:extern\s+"C"\s+)?(?:fn|struct|enum|trait|type|mod|const|static|union)\s+([A-Za-z_]\w*)/;
// Java
const JAVA_TYPE =
  /^[ \t]*public\s+(?:(?:static|final|abstract|sealed|strictfp)\s+)*(?:class|interface|enum|record|@interface)\s+([A-Za-z_]\w*)/;
const JAVA_PUBLIC = /^[ \t]*public\s/;
// C / C++
const C_TYPE = /^(?:typedef\s+)?(?:struct|class|enum|union)\s+([A-Za-z_]\w*)/;
const C_DEFINE = /^#define\s+([A-Za-z_]\w*)/;
const C_NOT_FUNCTION = /^(?:static|if|for|while|switch|return|else|do|typedef|using|namespace|template|case|goto|sizeof|#)/;
// Zig
const ZIG_PUB = /^pub\s+(?:inline\s+|export\s+|extern\s+)?(?:fn|const|var)\s+([A-Za-z_]\w*)/;
// Ruby
const RB_TYPE = /^[ \t]*(?:class|module)\s+([A-Z][\w:]*)/;
const RB_DEF = /^[ \t]*def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)/;
// Elixir
const EX_MODULE = /^[ \t]*defmodule\s+([A-Z][\w.]*)/;
const EX_DEF = /^[ \t]*def(?:macro|guard)?\s+([a-z_]\w*[?!]?)/;

/** First non-blank characters a hit can start with, per language (null: no cheap filter). */
const LEADS: Readonly<Record<SymbolLanguage, string | null>> = {
  ts: "eafc",
  python: "dac",
  go: "ft",
  rust: "p",
  java: "p",
  c: null,
  zig: "p",
  ruby: "cmd",
  elixir: "d",
};

interface LineHit {
  readonly name: string;
  readonly signature: boolean;
}

function scanLine(lang: SymbolLanguage, line: string): LineHit | null {
  let m: RegExpExecArray | null;
  switch (lang) {
    case "ts":
      if ((m = TS_EXPORT.exec(line)) !== null) return { name: m[2] ?? "", signature: true };
      if ((m = TS_LOCAL.exec(line)) !== null) return { name: m[1] ?? "", signature: false };
      return null;
    case "python":
      if ((m = PY_DEF.exec(line) ?? PY_CLASS.exec(line)) !== null) {
        const name = m[1] ?? "";
        return { name, signature: !name.startsWith("_") };
      }
      if ((m = PY_METHOD.exec(line)) !== null) return { name: m[1] ?? "", signature: false };
      return null;
    case "go":
      if ((m = GO_FUNC.exec(line) ?? GO_TYPE.exec(line)) !== null) return { name: m[1] ?? "", signature: true };
      return null;
    case "rust":
      if ((m = RUST_PUB.exec(line)) !== null) return { name: m[1] ?? "", signature: true };
      return null;
    case "java":
      if ((m = JAVA_TYPE.exec(line)) !== null) return { name: m[1] ?? "", signature: true };
      if (JAVA_PUBLIC.test(line)) {
        const name = nameBeforeParen(line);
        if (name !== null) return { name, signature: true };
      }
      return null;
    case "c":
      return scanCLine(line);
    case "zig":
      if ((m = ZIG_PUB.exec(line)) !== null) return { name: m[1] ?? "", signature: true };
      return null;
    case "ruby":
      if ((m = RB_TYPE.exec(line) ?? RB_DEF.exec(line)) !== null) return { name: m[1] ?? "", signature: true };
      return null;
    case "elixir":
      if ((m = EX_MODULE.exec(line) ?? EX_DEF.exec(line)) !== null) return { name: m[1] ?? "", signature: true };
      return null;
  }
}

function isIdentChar(code: number): boolean {
  return (
    (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95 || code === 58 || code === 126
  );
}

// A C/C++ top-level function definition or prototype: starts at column 0 with a type, has `(`.
// Parsed by hand (scan back from the first `(`) because a regex for "type tokens then name" would backtrack.
function scanCLine(line: string): LineHit | null {
  const t = C_TYPE.exec(line) ?? C_DEFINE.exec(line);
  if (t !== null) return { name: t[1] ?? "", signature: !line.startsWith("#") };
  const first = line.charCodeAt(0);
  const startsIdent = (first >= 65 && first <= 90) || (first >= 97 && first <= 122) || first === 95;
  if (!startsIdent || C_NOT_FUNCTION.test(line)) return null;
  const name = nameBeforeParen(line);
  if (name === null || line.trimEnd().endsWith(",")) return null;
  return { name, signature: true };
}

/** The identifier right before the first `(`, when something (a return type) precedes it. */
function nameBeforeParen(line: string): string | null {
  const paren = line.indexOf("(");
  if (paren <= 0) return null;
  let end = paren;
  while (end > 0 && (line.charCodeAt(end - 1) === 32 || line.charCodeAt(end - 1) === 9)) end--;
  let start = end;
  while (start > 0 && isIdentChar(line.charCodeAt(start - 1))) start--;
  if (start === end || start === 0 || line.slice(0, start).trim() === "") return null;
  const name = line.slice(start, end);
  if (name.endsWith(":") || name.startsWith(":")) return null;
  return name;
}

/** Scans `text` (file content, an edit's new text, a write's content) as the language of `path`. */
export function extractSymbols(path: string, text: string): SymbolScan {
  const lang = languageOf(path);
  const names: string[] = [];
  const signatures: string[] = [];
  if (lang === null) return { names, signatures };
  const seenNames = new Set<string>();
  const seenSigs = new Set<string>();
  const leads = LEADS[lang];
  const limit = Math.min(text.length, MAX_SCAN_CHARS);
  let pos = 0;
  while (pos < limit) {
    let nl = text.indexOf("\n", pos);
    if (nl < 0 || nl > limit) nl = limit;
    const start = pos;
    pos = nl + 1;
    if (nl === start || nl - start > 2000) continue;
    // Most lines cannot start a declaration: look at the first non-blank character before slicing.
    if (leads !== null) {
      let i = start;
      while (i < nl && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
      if (i === nl || !leads.includes(text.charAt(i))) continue;
    }
    const line = text.slice(start, nl);
    const hit = scanLine(lang, line);
    if (hit === null || hit.name === "") continue;
    if (!seenNames.has(hit.name)) {
      seenNames.add(hit.name);
      names.push(hit.name);
    }
    if (hit.signature) {
      let sig = line.trim();
      if (sig.length > MAX_SIGNATURE_CHARS) sig = sig.slice(0, MAX_SIGNATURE_CHARS) + "…";
      if (!seenSigs.has(sig)) {
        seenSigs.add(sig);
        signatures.push(sig);
      }
    }
  }
  return { names, signatures };
}
