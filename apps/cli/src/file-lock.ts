// A lock file beside a file several context-fold processes may append to (the seed index): `index`
// reads the highest seq and appends the next one under it, so two runs at once never take the same seq.
import { mkdir, open, rm, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { CliError, EXIT_USAGE } from "./output.js";

export interface LockOptions {
  /** Give up after this long (default 10 s). */
  readonly timeoutMs?: number;
  /** A lock older than this is left over from a crashed run and is taken over (default 30 s). */
  readonly staleMs?: number;
}

/** Runs `fn` holding `<target>.lock` (created exclusively, removed after, taken over when stale). */
export async function withFileLock<T>(target: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lock = `${target}.lock`;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const staleMs = options.staleMs ?? 30_000;
  const cannot = (error: unknown): CliError =>
    new CliError(`cannot write beside ${target}: ${error instanceof Error ? error.message : String(error)}`, { code: "WRITE_FAILED", exitCode: EXIT_USAGE, cause: error });
  try {
    await mkdir(dirname(lock), { recursive: true });
  } catch (error) {
    throw cannot(error);
  }
  const started = Date.now();
  let wait = 5;
  for (;;) {
    try {
      const handle = await open(lock, "wx");
      try {
        await handle.writeFile(`${String(process.pid)}\n`);
      } finally {
        await handle.close();
      }
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw cannot(error);
    }
    try {
      if (Date.now() - (await stat(lock)).mtimeMs > staleMs) {
        await rm(lock, { force: true });
        continue;
      }
    } catch {
      continue; // released between the two calls
    }
    if (Date.now() - started > timeoutMs) {
      throw new CliError(`${target} is locked by another context-fold run (${lock}); if none is running, delete that file`, { code: "LOCKED", exitCode: EXIT_USAGE });
    }
    await delay(wait);
    wait = Math.min(wait * 2, 100);
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { force: true });
  }
}
