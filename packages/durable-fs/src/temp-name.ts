// Temp files sit beside their target (same file system, so rename is atomic) under a name no other
// process or earlier crash can hold: pid plus random bytes, opened exclusively.
import { randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";

/** `.<name>.<pid>.<12 hex>.tmp` in the target's folder. */
export function tempPathFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.${String(process.pid)}.${randomBytes(6).toString("hex")}.tmp`);
}

/** Does `name` (a bare file name) look like a temp file `tempPathFor(target)` makes? */
export function isTempNameFor(target: string, name: string): boolean {
  const prefix = `.${basename(target)}.`;
  return name.startsWith(prefix) && name.endsWith(".tmp") && /^\d+\.[0-9a-f]{12}$/.test(name.slice(prefix.length, -4));
}
