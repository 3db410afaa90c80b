// Where histories are kept (one folder per sessions folder, in the user's state folder) and what each
// kept one holds on disk: the cache command lists and cleans them without opening a history.
import { type Dirent, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { stateDir } from "@context-fold/durable-fs";
import type { Manifest } from "./history-types.js";
import { sha256Hex } from "./sha256-text.js";

/** `$XDG_STATE_HOME/context-fold/history` (an absolute value only, as XDG says), else `~/.local/state/context-fold/history`. */
export function historyRoot(env: Readonly<Record<string, string | undefined>> = process.env): string {
  return stateDir("history", env);
}

/** The folder of one sessions folder's history: keyed by its resolved path (its SHA-256, hashed without node:crypto: see sha256-text.ts). */
export function historyDirFor(sessionsDir: string, root: string = historyRoot()): string {
  return join(root, sha256Hex(resolve(sessionsDir)).slice(0, 16));
}

function sortedNames(entries: Dirent[]): Dirent[] {
  return entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What one kept history is: its sessions folder, sessions and bytes. */
export interface HistoryListing {
  readonly dir: string;
  readonly sessionsDir: string | null;
  readonly sessions: number;
  readonly bytes: number;
  readonly modified: number;
}

function folderBytes(dir: string): { bytes: number; modified: number } {
  let bytes = 0;
  let modified = 0;
  const walk = (d: string): void => {
    let names: Dirent[];
    try {
      names = sortedNames(readdirSync(d, { withFileTypes: true }));
    } catch {
      return;
    }
    for (const e of names) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else {
        try {
          const st = statSync(p);
          bytes += st.size;
          modified = Math.max(modified, st.mtimeMs);
        } catch {
          // removed while listed
        }
      }
    }
  };
  walk(dir);
  return { bytes, modified };
}

/** Every history kept under `root`, by folder. */
export function listHistories(root: string = historyRoot()): HistoryListing[] {
  let names: Dirent[];
  try {
    names = sortedNames(readdirSync(root, { withFileTypes: true }));
  } catch {
    return [];
  }
  const out: HistoryListing[] = [];
  for (const e of names) {
    if (!e.isDirectory()) continue;
    const dir = join(root, e.name);
    let sessionsDir: string | null = null;
    let sessions = 0;
    try {
      const doc = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8")) as Partial<Manifest>;
      sessionsDir = typeof doc.sessionsDir === "string" ? doc.sessionsDir : null;
      sessions = Array.isArray(doc.sessions) ? doc.sessions.length : 0;
    } catch {
      // a history without a readable manifest is still listed (and can be cleaned)
    }
    out.push({ dir, sessionsDir, sessions, ...folderBytes(dir) });
  }
  return out;
}
