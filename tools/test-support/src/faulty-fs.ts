// A file layer that fails on purpose, for crash-injection tests of durable writers: the N-th mutating call
// (write, fsync, truncate, rename) suffers a short write, ENOSPC, or a crash after which every call fails
// as if the process had died. Everything else goes to the real file system, so what survives is real.
import { type FileSystem, nodeFileSystem } from "@context-fold/durable-fs";

export type FaultKind = "short-write" | "enospc" | "crash";

export interface FaultyFs extends FileSystem {
  /** Mutating calls seen so far. */
  readonly calls: number;
  /** true once a "crash" fault fired: nothing more reaches the disk. */
  readonly crashed: boolean;
  /** Labels of the mutating calls, in order (e.g. "write journal.jsonl"). */
  readonly log: readonly string[];
}

/** Thrown by every call after a simulated crash (and by the crashing call itself). */
export class SimulatedCrash extends Error {
  constructor(at: string) {
    super(`simulated crash at ${at}`);
    this.name = "SimulatedCrash";
  }
}

function enospc(what: string): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`ENOSPC: no space left on device, ${what}`);
  error.code = "ENOSPC";
  error.errno = -28;
  return error;
}

/**
 * `failAt` is the 1-based index of the mutating call that fails (0 = never). With "short-write" that
 * call writes half its bytes and the next `enospcFor` mutating calls fail with ENOSPC (the disk is full);
 * "enospc" fails `enospcFor` calls from `failAt` on (default 1); "crash" stops everything from `failAt`.
 */
export function faultyFs(failAt: number, kind: FaultKind, enospcFor = 1, base: FileSystem = nodeFileSystem): FaultyFs {
  let calls = 0;
  let crashed = false;
  let fullUntil = 0;
  const log: string[] = [];
  const paths = new Map<number, string>();
  const name = (fd: number): string => paths.get(fd) ?? `fd ${String(fd)}`;
  const alive = (what: string): void => {
    if (crashed) throw new SimulatedCrash(what);
  };
  /** Counts a mutating call; returns the fault to apply to it, if any. */
  const mutate = (what: string): "short" | "full" | null => {
    alive(what);
    calls += 1;
    log.push(what);
    if (calls === failAt) {
      if (kind === "crash") {
        crashed = true;
        throw new SimulatedCrash(what);
      }
      if (kind === "short-write") {
        fullUntil = calls + enospcFor;
        return "short";
      }
      fullUntil = calls + enospcFor - 1;
      return "full";
    }
    return calls <= fullUntil ? "full" : null;
  };
  const fs: FaultyFs = {
    get calls() {
      return calls;
    },
    get crashed() {
      return crashed;
    },
    log,
    openSync(path, flags, mode) {
      alive(`open ${path}`);
      const fd = base.openSync(path, flags, mode);
      paths.set(fd, path);
      return fd;
    },
    closeSync(fd) {
      paths.delete(fd);
      base.closeSync(fd); // a dead process's descriptors close too
    },
    writeSync(fd, buffer, offset, length, position) {
      const fault = mutate(`write ${name(fd)}`);
      if (fault === "full") throw enospc(`write ${name(fd)}`);
      if (fault === "short") return base.writeSync(fd, buffer, offset, Math.floor(length / 2), position);
      return base.writeSync(fd, buffer, offset, length, position);
    },
    fsyncSync(fd) {
      if (mutate(`fsync ${name(fd)}`) !== null) throw enospc(`fsync ${name(fd)}`);
      base.fsyncSync(fd);
    },
    ftruncateSync(fd, length) {
      // Truncation frees space: a full disk does not refuse it.
      mutate(`truncate ${name(fd)}`);
      base.ftruncateSync(fd, length);
    },
    fstatSync: (fd) => base.fstatSync(fd),
    renameSync(from, to) {
      if (mutate(`rename ${from}`) !== null) throw enospc(`rename ${from}`);
      base.renameSync(from, to);
    },
    rmSync(path, options) {
      alive(`rm ${path}`);
      base.rmSync(path, options);
    },
    mkdirSync(path, options) {
      alive(`mkdir ${path}`);
      base.mkdirSync(path, options);
    },
    statSync: (path) => base.statSync(path),
    linkSync(existing, created) {
      alive(`link ${existing}`);
      base.linkSync(existing, created);
    },
    readFileSync: (path) => base.readFileSync(path),
  };
  return fs;
}
