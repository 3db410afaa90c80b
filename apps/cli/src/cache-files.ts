// What context-fold keeps beside a session (`<session dir>/context-fold/<id>/`), each file named by kind,
// and which of them are derived — rebuilt on demand, so `cache clean` may remove them. Derived is an
// allow-list of exact paths computed by the modules that write them (the recall cache, its tail log and
// its block table); every other file — seed index, handoff, artifacts, retained memories, an outbox, a
// ledger, anything unknown — is kept.
import { readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { defaultCachePath, formerSnapshotPath, type SessionHead, snapshotPath, tailLogPath } from "@context-fold/recall-engine";
import { handoffPath, seedIndexPath } from "@context-fold/seed-index-format";

export type KeptKind = "seed-index" | "recall-cache" | "recall-cache-tail" | "block-table" | "handoff" | "artifacts" | "memory-retained" | "other";

export interface KeptFile {
  readonly path: string;
  readonly kind: KeptKind;
  readonly bytes: number;
  /** Last modification, ms since the epoch. */
  readonly modified: number;
  /** Rebuilt on demand: `cache clean` may remove it. */
  readonly derived: boolean;
}

export interface SessionFiles {
  readonly session: string;
  readonly id: string;
  /** The session file's own last write (ms since the epoch). */
  readonly sessionModified: number;
  readonly folder: string;
  readonly files: readonly KeptFile[];
}

/** Names the extension writes beside the seed index (its own modules own them; here they only label). */
const LABELS: Readonly<Record<string, KeptKind>> = {
  "durable-artifacts.json": "artifacts",
  "memory-retained.json": "memory-retained",
};

function walk(dir: string): string[] {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return []; // no folder yet: nothing kept
  }
  const out: string[] = [];
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(path));
    else if (e.isFile()) out.push(path);
  }
  return out;
}

/** Every file kept beside one session, by kind. */
export function sessionFiles(head: SessionHead): SessionFiles {
  const seedIndex = seedIndexPath(head.path, head.id);
  const folder = dirname(seedIndex);
  const cache = defaultCachePath(head.path, head.id);
  const derived = new Map<string, KeptKind>([
    [cache, "recall-cache"],
    [tailLogPath(cache), "recall-cache-tail"],
    [snapshotPath(cache), "block-table"],
    [formerSnapshotPath(cache), "block-table"],
  ]);
  const handoff = handoffPath(head.path, head.id);
  const files: KeptFile[] = [];
  for (const path of walk(folder)) {
    const stat = statSync(path);
    const derivedKind = derived.get(path);
    const name = path.slice(folder.length + 1);
    const kind: KeptKind = derivedKind ?? (path === seedIndex ? "seed-index" : path === handoff ? "handoff" : (LABELS[name] ?? "other"));
    files.push({ path, kind, bytes: stat.size, modified: stat.mtimeMs, derived: derivedKind !== undefined });
  }
  return { session: head.path, id: head.id, sessionModified: statSync(head.path).mtimeMs, folder, files };
}

/** A session or a file written this recently may be in use by a running Pi or recall: never cleaned. */
export const RECENT_MS = 60 * 60 * 1000;

export interface CleanPlan {
  readonly remove: readonly KeptFile[];
  /** Sessions whose derived files stay because the session was written within the last hour. */
  readonly recentSessions: readonly string[];
}

/** The derived files `cache clean` removes: older than `olderThanMs` and of no session written within the hour. */
export function planClean(sessions: readonly SessionFiles[], now: number, olderThanMs: number): CleanPlan {
  const remove: KeptFile[] = [];
  const recentSessions: string[] = [];
  for (const s of sessions) {
    const derived = s.files.filter((f) => f.derived);
    if (now - s.sessionModified < RECENT_MS) {
      if (derived.length > 0) recentSessions.push(s.session);
      continue;
    }
    for (const f of derived) {
      const age = now - f.modified;
      if (age >= RECENT_MS && age >= olderThanMs) remove.push(f);
    }
  }
  return { remove, recentSessions };
}

const UNITS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `90m`, `2w` in ms; undefined for anything else. */
export function parseAge(text: string): number | undefined {
  const m = /^(\d{1,6})([mhdw])$/.exec(text.trim());
  if (m === null) return undefined;
  return Number(m[1]) * (UNITS[m[2] ?? ""] ?? Number.NaN);
}
