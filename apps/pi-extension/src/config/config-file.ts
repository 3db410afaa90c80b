// The user's config file, `<agentDir>/context-fold.json`: scaffolded (atomically, never over an existing
// file) on first load, otherwise only read — unknown keys and formatting stay exactly as the user wrote them.
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { syncDirectory, tempPathFor, writeAll } from "@context-fold/durable-fs";

/** File name of the config, in Pi's agent directory. */
export const CONFIG_FILE = "context-fold.json";

export type ConfigFileErrorCode = "CONFIG_UNREADABLE" | "CONFIG_INVALID_JSON" | "CONFIG_NOT_OBJECT" | "CONFIG_SCAFFOLD_FAILED";

/** A config file we could not use (defaults apply). Carries the place in the file when JSON.parse names one. */
export class ConfigFileError extends Error {
  readonly code: ConfigFileErrorCode;
  readonly file: string;
  /** 1-based line and column, and the byte offset, of the syntax error (when JSON.parse reports a position). */
  readonly line: number | undefined;
  readonly column: number | undefined;
  readonly offset: number | undefined;
  constructor(code: ConfigFileErrorCode, file: string, message: string, at?: { line: number; column: number; offset: number }) {
    super(message);
    this.name = "ConfigFileError";
    this.code = code;
    this.file = file;
    this.line = at?.line;
    this.column = at?.column;
    this.offset = at?.offset;
  }
}

/** `<agentDir>/context-fold.json`. */
export function configPath(agentDir: string): string {
  return join(agentDir, CONFIG_FILE);
}

/** What loading found: the parsed object (empty when missing or broken), whether we created the file, and why it was unusable. */
export interface LoadedConfig {
  readonly file: string;
  readonly value: Readonly<Record<string, unknown>>;
  readonly scaffolded: boolean;
  readonly error: ConfigFileError | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Line, column (1-based, UTF-16 units as editors count) and UTF-8 byte offset of string index `index`. */
export function locate(text: string, index: number): { line: number; column: number; offset: number } {
  const at = Math.max(0, Math.min(index, text.length));
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < at; i = text.indexOf("\n", i + 1)) {
    line += 1;
    lineStart = i + 1;
  }
  return { line, column: at - lineStart + 1, offset: Buffer.byteLength(text.slice(0, at), "utf8") };
}

/** Where JSON.parse says the error is: "at position N" (V8), or the end for "Unexpected end of JSON input". */
function errorIndex(text: string, message: string): number | undefined {
  const m = /at position (\d{1,12})/.exec(message);
  if (m !== null) return Number(m[1]);
  if (/end of JSON input/i.test(message)) return text.length;
  return undefined;
}

/** Parse config text; a syntax error or a non-object becomes a ConfigFileError naming the place. */
export function parseConfigText(file: string, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    // A UTF-8 byte-order mark is not JSON, but editors write it: skip it rather than refuse the file.
    value = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const index = errorIndex(text, reason);
    const at = index === undefined ? undefined : locate(text, text.charCodeAt(0) === 0xfeff ? index + 1 : index);
    const where = at === undefined ? file : `${file}:${String(at.line)}:${String(at.column)} (byte ${String(at.offset)})`;
    throw new ConfigFileError("CONFIG_INVALID_JSON", file, `${where}: not valid JSON (${reason}). Using the defaults; fix the file, or delete it to get a fresh one.`, at);
  }
  if (!isRecord(value)) {
    throw new ConfigFileError("CONFIG_NOT_OBJECT", file, `${file}: expected a JSON object ({ … }) at the top level. Using the defaults.`);
  }
  return value;
}

/**
 * Create `file` with `text` unless it exists: written to a temp file, fsynced, then hard-linked into
 * place — a link never replaces an existing file, so a user's file (or a concurrent Pi's) always wins.
 * Returns false when the file already existed.
 */
export function scaffoldConfigFile(file: string, text: string): boolean {
  const dir = dirname(file);
  // The temp name, the write-all loop and the folder fsync are durable-fs's; the no-clobber link is ours.
  const temp = tempPathFor(file);
  try {
    mkdirSync(dir, { recursive: true });
    const fd = openSync(temp, "wx", 0o600);
    try {
      writeAll(fd, Buffer.from(text, "utf8"), 0, temp);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    try {
      linkSync(temp, file);
    } catch (error) {
      if ((error as { code?: unknown }).code === "EEXIST") return false;
      throw error;
    }
    try {
      syncDirectory(dir);
    } catch {
      // The link itself is atomic; a folder fsync that fails only weakens it against a power cut.
    }
    return true;
  } catch (error) {
    throw new ConfigFileError("CONFIG_SCAFFOLD_FAILED", file, `${file}: cannot create the config file (${error instanceof Error ? error.message : String(error)}). Using the defaults.`);
  } finally {
    rmSync(temp, { force: true });
  }
}

/** Read the config file, scaffolding it with `scaffold` when it does not exist. Never throws. */
export function loadConfigFile(file: string, scaffold: string): LoadedConfig {
  let text: string;
  let scaffolded = false;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code !== "ENOENT") {
      const e = new ConfigFileError("CONFIG_UNREADABLE", file, `${file}: cannot read the config file (${error instanceof Error ? error.message : String(error)}). Using the defaults.`);
      return { file, value: {}, scaffolded, error: e };
    }
    try {
      scaffolded = scaffoldConfigFile(file, scaffold);
      text = scaffolded ? scaffold : readFileSync(file, "utf8");
    } catch (inner) {
      return { file, value: {}, scaffolded, error: inner instanceof ConfigFileError ? inner : new ConfigFileError("CONFIG_UNREADABLE", file, String(inner)) };
    }
  }
  try {
    return { file, value: parseConfigText(file, text), scaffolded, error: undefined };
  } catch (error) {
    return { file, value: {}, scaffolded, error: error as ConfigFileError };
  }
}
