// ../shared (beside the project) holds the real Pi session fixtures. CI always has it; a user's clone may
// not, and then only the tests that read it are left out, with one printed notice.
import { existsSync, readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe } from "vitest";

const projectRoot = resolve(import.meta.dirname, "../../..");
export const sharedDir = resolve(projectRoot, "..", "shared");
export const hasShared = existsSync(join(sharedDir, "fixtures", "sessions"));

let noticePrinted = false;

/** Path of a file under ../shared/fixtures. */
export function sharedFixture(...parts: string[]): string {
  return join(sharedDir, "fixtures", ...parts);
}

/** Every real session fixture (absolute paths, sorted), or [] without ../shared. */
export function sessionFixtures(): string[] {
  if (!hasShared) return [];
  const dir = join(sharedDir, "fixtures", "sessions");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(dir, f));
}

/** A describe block that needs ../shared; without it the block is left out and a notice printed once. */
export function describeShared(name: string, fn: () => void): void {
  if (!hasShared && !noticePrinted) {
    noticePrinted = true;
    console.warn(`[context-fold] ${sharedDir} is missing: tests that read the shared Pi session fixtures are left out.`);
  }
  describe.runIf(hasShared)(name, fn);
}
