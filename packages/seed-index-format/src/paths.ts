// Where the seed index and handoff seeds live, and the only safe way to open an untrusted fullOutputPath.
import { realpath, stat } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import { InvalidSessionIdError } from "./errors.js";

function folderFor(sessionFile: string, sessionId: string): string {
  if (sessionId.length === 0 || sessionId === "." || sessionId === ".." || /[/\\\0]/.test(sessionId)) {
    throw new InvalidSessionIdError(sessionId);
  }
  return join(dirname(sessionFile), "context-fold", sessionId);
}

/** `<dir of session file>/context-fold/<session id>/seed-index.jsonl`. */
export function seedIndexPath(sessionFile: string, sessionId: string): string {
  return join(folderFor(sessionFile, sessionId), "seed-index.jsonl");
}

/** `<dir of session file>/context-fold/<session id>/handoff-<session id>.md`, beside the seed index. */
export function handoffPath(sessionFile: string, sessionId: string): string {
  return join(folderFor(sessionFile, sessionId), `handoff-${sessionId}.md`);
}

export type ResolvedPath = { ok: true; path: string } | { ok: false; reason: string };

function within(child: string, root: string): boolean {
  if (child === root) return true;
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return child.startsWith(prefix);
}

/**
 * Resolve a span's `fullOutputPath` (untrusted record data) to a real file under one of `roots`.
 * Refuses relative paths, `..` segments, NUL bytes, missing files, non-files, and anything whose real
 * path (symlinks followed) lies outside every root's real path.
 */
export async function resolveFullOutputPath(path: string, roots: readonly string[]): Promise<ResolvedPath> {
  if (typeof path !== "string" || path.length === 0) return { ok: false, reason: "fullOutputPath is empty" };
  if (path.includes("\0")) return { ok: false, reason: "fullOutputPath contains a NUL byte" };
  if (!isAbsolute(path)) return { ok: false, reason: `fullOutputPath ${JSON.stringify(path)} is not absolute` };
  if (path.split(/[/\\]/).includes("..")) return { ok: false, reason: `fullOutputPath ${JSON.stringify(path)} contains a ".." segment` };
  if (roots.length === 0) return { ok: false, reason: "no allowed roots were given" };
  const lexical = resolve(path);
  const realRoots: string[] = [];
  for (const root of roots) {
    try {
      realRoots.push(await realpath(resolve(root)));
    } catch {
      // A root that does not exist allows nothing.
    }
  }
  if (!roots.some((root) => within(lexical, resolve(root))) && !realRoots.some((root) => within(lexical, root))) {
    return { ok: false, reason: `fullOutputPath ${JSON.stringify(path)} is outside the allowed roots` };
  }
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? "error";
    return { ok: false, reason: `fullOutputPath ${JSON.stringify(path)} cannot be resolved (${code})` };
  }
  if (!realRoots.some((root) => within(real, root))) {
    return { ok: false, reason: `fullOutputPath ${JSON.stringify(path)} resolves to ${JSON.stringify(real)}, outside the allowed roots (symlink escape)` };
  }
  const info = await stat(real);
  if (!info.isFile()) return { ok: false, reason: `fullOutputPath ${JSON.stringify(path)} is not a regular file` };
  return { ok: true, path: real };
}
