// The one progress bar: on stderr, if and only if stderr is a terminal and --no-progress was not given.
// Bytes or items, with an ETA from the rate so far; redrawn at most every 100 ms and cleared when done,
// so a pipe, a file or a test never sees it and the terminal is left as it was.
import { fstatSync } from "node:fs";
import { isatty } from "node:tty";

/** 1536 → "1.5 KiB": sizes as people read them. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${String(n)} B`;
  const units = ["KiB", "MiB", "GiB", "TiB"];
  let v = n / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i] ?? "TiB"}`;
}

let wanted = true;

/** Set from the program's --no-progress flag before a command runs. */
export function setProgressWanted(value: boolean): void {
  wanted = value;
}

export interface Progress {
  /** `done` of `total` so far (total may change, e.g. when a list is known). */
  update(done: number, total: number): void;
  /** Clear the bar. */
  end(): void;
}

const NONE: Progress = { update: () => undefined, end: () => undefined };
const WIDTH = 24;
const REDRAW_MS = 100;

function clock(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  return s < 60 ? `${String(s)}s` : `${String(Math.floor(s / 60))}m${String(s % 60).padStart(2, "0")}s`;
}

/**
 * Whether descriptor `fd` is a terminal. A terminal is a character device: a pipe or a file (stderr as a
 * script or a test sees it) is told by its stat alone, without loading node:tty (which loads node:net
 * and the stream classes, some 7 ms of a short process's CPU).
 */
function isTerminal(fd: number): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return isatty(fd);
}

/** A bar labelled `label`, counting bytes or items; a no-op unless stderr is a TTY and progress is wanted. */
export function startProgress(label: string, unit: "bytes" | "items", given?: NodeJS.WriteStream): Progress {
  // Without a stream given, stderr is asked whether it is a terminal before process.stderr is made (making it loads its modules).
  if (!wanted || (given === undefined && !isTerminal(2))) return NONE;
  const stream = given ?? process.stderr;
  if (stream.isTTY !== true) return NONE;
  const started = Date.now();
  let last = -Infinity;
  let drawn = false;
  const amount = (n: number): string => (unit === "bytes" ? formatBytes(n) : String(n));
  return {
    update(done: number, total: number): void {
      const now = Date.now();
      if (now - last < REDRAW_MS && done < total) return;
      last = now;
      const fraction = total > 0 ? Math.min(1, done / total) : 0;
      const filled = Math.round(fraction * WIDTH);
      const elapsed = (now - started) / 1000;
      const eta = done > 0 && done < total ? ` ETA ${clock((elapsed * (total - done)) / done)}` : "";
      stream.write(`\r\u001b[K${label} [${"#".repeat(filled)}${".".repeat(WIDTH - filled)}] ${amount(done)}/${amount(total)} ${String(Math.floor(fraction * 100))}%${eta}`);
      drawn = true;
    },
    end(): void {
      if (drawn) stream.write("\r\u001b[K");
      drawn = false;
    },
  };
}

/** The gardener's phases in order: its progress is the phase it finished. */
export const GARDEN_PHASES: readonly string[] = ["manifest", "shards", "judge", "apply", "report"];

/** Runs `job` with a bar that ends however the job does. */
export async function withProgress<T>(label: string, unit: "bytes" | "items", job: (progress: Progress) => Promise<T>): Promise<T> {
  const progress = startProgress(label, unit);
  try {
    return await job(progress);
  } finally {
    progress.end();
  }
}
