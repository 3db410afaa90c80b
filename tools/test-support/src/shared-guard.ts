// Vitest global setup: the shared fixtures are never written. CI runs as root, so missing write bits
// do not protect ../shared; this fingerprint (names, sizes, mtimes) before and after the run does.
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { sharedDir } from "./shared.js";

function fingerprint(dir: string): string {
  if (!existsSync(dir)) return "";
  const lines: string[] = [];
  const walk = (current: string): void => {
    for (const name of readdirSync(current).sort()) {
      const full = join(current, name);
      const stat = statSync(full);
      lines.push(`${full}\t${stat.isDirectory() ? "dir" : stat.size}\t${stat.mtimeMs}`);
      if (stat.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return lines.join("\n");
}

export default function setup(): () => void {
  const before = fingerprint(sharedDir);
  return () => {
    const after = fingerprint(sharedDir);
    if (after !== before) {
      const was = new Set(before.split("\n"));
      const changed = after.split("\n").filter((line) => !was.has(line));
      // A throw here is only logged by vitest; the exit code is what CI reads.
      process.stderr.write(`\nA test wrote into ${sharedDir} (never allowed):\n${changed.join("\n")}\n`);
      process.exitCode = 1;
    }
  };
}
