// The optional damage post-step: torn lines (two entries glued), malformed lines and a truncated last
// line, as seen in real session files. Works on the finished file; never touches the header.
import { closeSync, openSync, readFileSync, renameSync, writeSync } from "node:fs";
import type { DamageOptions, DamageReport } from "./manifest.js";
import type { SeededRandom } from "./random.js";

export class DamageError extends Error {
  readonly code = "E_GEN_DAMAGE" as const;
  constructor(message: string, readonly file: string) {
    super(`${message} (${file})`);
    this.name = "DamageError";
  }
}

function entryId(line: Buffer): string {
  try {
    const parsed = JSON.parse(line.toString("utf8")) as { id?: unknown };
    return typeof parsed.id === "string" ? parsed.id : "";
  } catch {
    return "";
  }
}

export async function applyDamage(path: string, damage: DamageOptions, rng: SeededRandom): Promise<DamageReport> {
  const data = readFileSync(path);
  const starts: number[] = [0];
  for (let i = data.indexOf(10); i !== -1 && i < data.length - 1; i = data.indexOf(10, i + 1)) starts.push(i + 1);
  const count = starts.length; // lines; the last one ends with "\n"
  const line = (i: number): Buffer => data.subarray(starts[i] ?? 0, (starts[i + 1] ?? data.length) - 1);
  const torn = damage.tornLines ?? 0;
  const malformed = damage.malformedLines ?? 0;
  // Body lines 1 … count-1; a torn line glues i and i+1, so pairs must not overlap nor touch the tail.
  const lastUsable = count - (damage.truncatedTail ? 3 : 2);
  if (torn * 3 > lastUsable) throw new DamageError(`cannot tear ${torn} lines in a file of ${count} lines`, path);
  const tornAt = new Set<number>();
  while (tornAt.size < torn) {
    const i = rng.int(1, lastUsable);
    if (!tornAt.has(i) && !tornAt.has(i - 1) && !tornAt.has(i + 1) && !tornAt.has(i - 2) && !tornAt.has(i + 2)) tornAt.add(i);
  }
  const malformedBefore = new Map<number, number>();
  for (let k = 0; k < malformed; k++) {
    const i = rng.int(1, count - 1);
    malformedBefore.set(i, (malformedBefore.get(i) ?? 0) + 1);
  }
  const report: DamageReport = { tornLines: [], malformedLines: [], truncatedTail: damage.truncatedTail ?? false, lostEntryIds: [] };
  const tmp = `${path}.damage-tmp`;
  const fd = openSync(tmp, "w");
  try {
    let outLine = 0;
    for (let i = 0; i < count; i++) {
      for (let k = malformedBefore.get(i) ?? 0; k > 0; k--) {
        const junk = rng.pick([
          `{"type":"message","id":"${rng.hex(8)}","parentId":"${rng.hex(8)}","timestamp":"2026-`,
          `{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"unterminated`,
          `\u0000\u0000\u0000\u0000`,
          `<<<<<<< HEAD`,
        ]);
        writeSync(fd, `${junk}\n`);
        outLine++;
        report.malformedLines.push(outLine);
      }
      const isLast = i === count - 1;
      if (tornAt.has(i)) {
        // Two objects on one line: the first one's newline is lost.
        writeSync(fd, line(i));
        writeSync(fd, line(i + 1));
        writeSync(fd, "\n");
        outLine++;
        report.tornLines.push(outLine);
        report.lostEntryIds.push(entryId(line(i)), entryId(line(i + 1)));
        i++;
        continue;
      }
      if (isLast && damage.truncatedTail) {
        const l = line(i);
        report.lostEntryIds.push(entryId(l));
        writeSync(fd, l.subarray(0, Math.max(1, Math.floor(l.length / 2))));
        outLine++;
        continue;
      }
      writeSync(fd, line(i));
      writeSync(fd, "\n");
      outLine++;
    }
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
  return report;
}
