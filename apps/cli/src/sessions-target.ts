// Where `recall --sessions [value]` searches (its own module, so the program's start does not load
// recall-engine for it).
import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { piSessionsDir } from "@context-fold/recall-engine";

/**
 * What `--sessions [value]` names: a folder when the value is an existing directory; otherwise the value
 * is the query's first word and the folder is Pi's sessions folder (`recall --sessions refreshToken`).
 */
export function sessionsTarget(value: string | true): { dir: string; firstWord: string | undefined } {
  if (value === true) return { dir: piSessionsDir(), firstWord: undefined };
  const dir = resolve(value);
  if (existsSync(dir) && statSync(dir).isDirectory()) return { dir, firstWord: undefined };
  return { dir: piSessionsDir(), firstWord: value };
}
