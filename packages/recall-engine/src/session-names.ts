// Naming a session the way a person would: a path, a session id or a unique prefix of one, or `latest`.
// The one resolver for the CLI and the extension's cross-session scope. The sessions folder is Pi's:
// PI_CODING_AGENT_SESSION_DIR, else the `sessionDir` setting (project `.pi/settings.json` over the agent
// dir's `settings.json`, relative paths from the working directory), else `<agentDir>/sessions` with
// agentDir = PI_CODING_AGENT_DIR or ~/.pi/agent (Pi's docs: settings.md, environment-variables.md).
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { readSessionHead, type SessionHead } from "./session-head.js";
import { listSessionFiles } from "./sessions.js";

// The header rule lives in session-head.ts; re-exported here, where callers have always found it.
export { readSessionHead, type SessionHead };

export interface SessionPlace {
  /** Environment to read PI_CODING_AGENT_DIR / PI_CODING_AGENT_SESSION_DIR from (default process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** The working directory: its project's settings and `latest` (default process.cwd()). */
  readonly cwd?: string;
  /** Search here instead of Pi's sessions folder. */
  readonly sessionsDir?: string;
}

export type SessionNameErrorCode = "AMBIGUOUS_SESSION" | "SESSION_NOT_FOUND";

export class SessionNameError extends Error {
  readonly code: SessionNameErrorCode;
  /** The sessions an ambiguous name matches (path and id), newest first. */
  readonly candidates: readonly SessionHead[];
  constructor(code: SessionNameErrorCode, message: string, candidates: readonly SessionHead[] = []) {
    super(message);
    this.name = "SessionNameError";
    this.code = code;
    this.candidates = candidates;
  }
}

function expandHome(path: string): string {
  return path === "~" ? homedir() : path.startsWith("~/") ? join(homedir(), path.slice(2)) : path;
}

/** Pi's agent dir: PI_CODING_AGENT_DIR or ~/.pi/agent. */
export function piAgentDir(place: SessionPlace = {}): string {
  const env = place.env ?? process.env;
  const dir = env["PI_CODING_AGENT_DIR"];
  return dir !== undefined && dir !== "" ? resolve(expandHome(dir)) : join(homedir(), ".pi", "agent");
}

function settingSessionDir(file: string): string | undefined {
  if (!existsSync(file)) return undefined;
  try {
    const value = (JSON.parse(readFileSync(file, "utf8")) as { sessionDir?: unknown }).sessionDir;
    return typeof value === "string" && value !== "" ? value : undefined;
  } catch {
    return undefined; // Pi reports a broken settings file itself; we fall back to its default
  }
}

/** The folder Pi keeps sessions in, as Pi itself would choose it. */
export function piSessionsDir(place: SessionPlace = {}): string {
  if (place.sessionsDir !== undefined) return resolve(place.sessionsDir);
  const env = place.env ?? process.env;
  const cwd = place.cwd ?? process.cwd();
  const fromEnv = env["PI_CODING_AGENT_SESSION_DIR"];
  const chosen =
    (fromEnv !== undefined && fromEnv !== "" ? fromEnv : undefined) ??
    settingSessionDir(join(cwd, ".pi", "settings.json")) ??
    settingSessionDir(join(piAgentDir(place), "settings.json"));
  if (chosen === undefined) return join(piAgentDir(place), "sessions");
  const expanded = expandHome(chosen);
  return isAbsolute(expanded) ? expanded : resolve(cwd, expanded);
}

/** Pi's sessions folder for this process (environment, settings, working directory). */
export function defaultSessionsDir(): string {
  return piSessionsDir();
}

/** Every session under the sessions folder, by its header. */
export function listSessionHeads(place: SessionPlace = {}): SessionHead[] {
  const out: SessionHead[] = [];
  for (const file of listSessionFiles(piSessionsDir(place))) {
    const head = readSessionHead(file);
    if (head !== undefined) out.push(head);
  }
  return out;
}

function newestFirst(a: SessionHead, b: SessionHead): number {
  const ta = Number.isNaN(a.time) ? -Infinity : a.time;
  const tb = Number.isNaN(b.time) ? -Infinity : b.time;
  return tb - ta || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
}

/** The name `latest`: resolved after paths and ids, so a file or id of that name wins. */
export const LATEST = "latest";

/**
 * The session file a name means, in this order: an existing path; a session id, or a prefix of exactly
 * one session's id, in the sessions folder; `latest`, the session of the working directory's project
 * with the newest header timestamp. An ambiguous prefix throws AMBIGUOUS_SESSION listing the
 * candidates. A name that looks like a path (a separator or `.jsonl`) and matches nothing comes back as
 * that path, so the reader names the missing file.
 */
export function resolveSessionName(name: string, place: SessionPlace = {}): string {
  const cwd = place.cwd ?? process.cwd();
  const asPath = resolve(cwd, expandHome(name));
  if (existsSync(asPath)) return asPath;
  const looksLikePath = name.includes("/") || name.includes("\\") || name.endsWith(".jsonl");
  if (looksLikePath) return asPath;
  const heads = listSessionHeads(place);
  const exact = heads.filter((h) => h.id === name);
  if (exact.length === 1 && exact[0] !== undefined) return exact[0].path;
  const byPrefix = exact.length > 1 ? exact : heads.filter((h) => h.id.startsWith(name));
  if (byPrefix.length === 1 && byPrefix[0] !== undefined) return byPrefix[0].path;
  const dir = piSessionsDir(place);
  if (byPrefix.length > 1) {
    const sorted = [...byPrefix].sort(newestFirst);
    throw new SessionNameError(
      "AMBIGUOUS_SESSION",
      `"${name}" is the start of ${String(sorted.length)} session ids under ${dir}; give more of the id:\n${sorted.map((h) => `  ${h.id}  ${h.path}`).join("\n")}`,
      sorted,
    );
  }
  if (name === LATEST) {
    const project = heads.filter((h) => h.cwd !== undefined && resolve(h.cwd) === resolve(cwd)).sort(newestFirst);
    const newest = project[0];
    if (newest === undefined) throw new SessionNameError("SESSION_NOT_FOUND", `no session of ${cwd} under ${dir} (\`latest\` is the newest session started in the current directory)`);
    return newest.path;
  }
  throw new SessionNameError("SESSION_NOT_FOUND", `"${name}" is neither a file nor the id (or start of one) of a session under ${dir} (${String(heads.length)} session(s) there)`);
}
