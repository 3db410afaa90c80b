// The binary's fast path for the command run most often: `recall <session file> [words…] [options]`,
// parsed from recall's option table (recall-options.ts) without loading commander, which costs a start
// more than the search itself. It takes only what it parses exactly as commander would; anything else
// (help, a mistake, `--sessions` without a folder, a short or unknown option, `--`, a value that starts with "-", a
// session named by id or `latest`) is left to commander, which then says what it always says.
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { RECALL_OPTIONS, type RecallOptions } from "./recall-options.js";

export interface RecallArgv {
  readonly session: string;
  readonly words: string[];
  readonly options: RecallOptions;
}

interface Spec {
  /** The property commander sets: the long name in camelCase (`--page-size` → pageSize, `--no-cache` → cache). */
  readonly key: keyof RecallOptions;
  /** `<value>`: takes one; `[value]`: may take one (left to commander); none: a flag. */
  readonly value: "required" | "optional" | "none";
  /** `--no-x`: sets x to false (and x defaults to true). */
  readonly negated: boolean;
}

const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

/** Long option name (as typed, without `--`) → how commander reads it. */
function specs(): Map<string, Spec> {
  const out = new Map<string, Spec>();
  for (const { flags } of RECALL_OPTIONS) {
    const m = /^--([a-z][a-z-]*)(?: ([<[]))?/.exec(flags);
    if (m === null) throw new Error(`recall option "${flags}" is not a long option`);
    const name = m[1] as string;
    const negated = name.startsWith("no-");
    out.set(name, {
      key: camel(negated ? name.slice(3) : name) as keyof RecallOptions,
      value: m[2] === "<" ? "required" : m[2] === "[" ? "optional" : "none",
      negated,
    });
  }
  return out;
}

/** Commander's defaults: a `--no-x` option makes x true unless given. */
function defaults(table: Map<string, Spec>): RecallOptions {
  const options: Record<string, unknown> = {};
  for (const spec of table.values()) if (spec.negated) options[spec.key] = true;
  return options as RecallOptions;
}

/** Whether `path` names an existing folder. */
function isFolder(path: string): boolean {
  try {
    return statSync(resolve(path)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * `args` (what follows `recall`) as commander would hand them to recall's action, or null when the fast
 * path does not take them. The session must name an existing path other than through `~`: the session
 * resolver (recall-engine's session-names) then gives that path itself, so no resolving is skipped.
 */
export function parseRecallArgv(args: readonly string[]): RecallArgv | null {
  const parsed = parseArgv(args, false);
  if (parsed === null) return null;
  const [session, ...words] = parsed.positionals;
  if (session === undefined || session.startsWith("~") || !existsSync(resolve(session))) return null;
  return { session, words, options: parsed.options };
}

/**
 * `recall --sessions <folder> [words…] [options]` as commander would hand it to recall's action (the
 * first word as its session argument, as commander takes it), or null when the fast path does not take
 * it: only a `--sessions` value naming an existing folder (`--sessions` alone, or with a first query
 * word, is left to commander, as everything parseRecallArgv leaves).
 */
export function parseSessionsArgv(args: readonly string[]): { session: string | undefined; words: string[]; options: RecallOptions } | null {
  const parsed = parseArgv(args, true);
  if (parsed === null || typeof parsed.options.sessions !== "string") return null;
  const [session, ...words] = parsed.positionals;
  return { session, words, options: parsed.options };
}

function parseArgv(args: readonly string[], sessions: boolean): { positionals: string[]; options: RecallOptions } | null {
  const table = specs();
  const options = defaults(table) as Record<string, unknown>;
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith("-")) {
      positionals.push(arg);
      continue;
    }
    if (!arg.startsWith("--") || arg === "--") return null;
    const eq = arg.indexOf("=");
    const spec = table.get(eq === -1 ? arg.slice(2) : arg.slice(2, eq));
    if (sessions && spec?.key === "sessions" && options["sessions"] === undefined) {
      // Commander takes the next argument as the value unless it starts with "-"; only a folder is taken here.
      const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
      if (value === undefined || value === "" || value.startsWith("-") || !isFolder(value)) return null;
      options["sessions"] = value;
      continue;
    }
    if (spec === undefined || spec.value === "optional") return null;
    if (spec.value === "none") {
      if (eq !== -1) return null;
      options[spec.key] = !spec.negated;
      continue;
    }
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined || value === "" || value.startsWith("-")) return null;
    options[spec.key] = value;
  }
  return { positionals, options: options as RecallOptions };
}
