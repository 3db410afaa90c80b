// Pairing `--truth` files with the sessions given to `eval`, by the sha256 of the session file: a truth
// file says what one exact file holds, so a session that changed by a byte is not scored against it.
import { readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { EvalInputError } from "./eval-manifest.js";
import { readTruthFile, type SessionTruth } from "./truth-file.js";

/** A truth file found under a `--truth` argument; `fromDir` when it came from listing a directory. */
export interface TruthSource {
  readonly truth: SessionTruth;
  readonly fromDir: boolean;
}

/** `*.truth.json` files of a directory (not recursive), sorted by name. */
async function truthFilesIn(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  return names
    .filter((n) => n.endsWith(".truth.json"))
    .sort()
    .map((n) => join(dir, n));
}

/** Reads every `--truth` argument: a file, or a directory of `*.truth.json`. */
export async function readTruthSources(args: readonly string[]): Promise<TruthSource[]> {
  const out: TruthSource[] = [];
  for (const arg of args) {
    let isDir = false;
    try {
      isDir = (await stat(arg)).isDirectory();
    } catch (error) {
      throw new EvalInputError("TRUTH_UNREADABLE", arg, `cannot read --truth ${arg}: ${(error as Error).message}`, { cause: error });
    }
    if (!isDir) {
      out.push({ truth: await readTruthFile(arg), fromDir: false });
      continue;
    }
    const files = await truthFilesIn(arg);
    if (files.length === 0) throw new EvalInputError("TRUTH_UNREADABLE", arg, `--truth ${arg} holds no *.truth.json file`);
    for (const file of files) out.push({ truth: await readTruthFile(file), fromDir: true });
  }
  return out;
}

/** A session file given to `eval`, with its hash. */
export interface HashedFile {
  readonly file: string;
  readonly sha256: string;
}

export interface TruthPairing {
  /** Truth by session file (as given on the command line). */
  readonly bySession: ReadonlyMap<string, SessionTruth>;
  /** Truth files from a directory written for sessions that were not given (left out, listed). */
  readonly unused: readonly string[];
}

/**
 * Pairs truth files with sessions by sha256. Refused (TRUTH_UNMATCHED, exit 2): a truth file named on
 * the command line that matches no given session; a truth file (named or found in a directory) whose
 * `sessionFile` is the name of a given session whose bytes hash differently (the session changed, or the
 * truth is for another copy); two truth files for one session. A directory's truth files for sessions
 * that were not given at all are left out and listed in `unused`.
 */
export function pairTruths(files: readonly HashedFile[], sources: readonly TruthSource[]): TruthPairing {
  const bySession = new Map<string, SessionTruth>();
  const unused: string[] = [];
  for (const { truth, fromDir } of sources) {
    const matches = files.filter((f) => f.sha256 === truth.sha256);
    if (matches.length > 0) {
      for (const m of matches) {
        const other = bySession.get(m.file);
        if (other !== undefined && other.file !== truth.file)
          throw new EvalInputError("TRUTH_UNMATCHED", truth.file, `${m.file} has two truth files: ${other.file} and ${truth.file}`);
        bySession.set(m.file, truth);
      }
      continue;
    }
    const sameName = files.find((f) => basename(f.file) === truth.sessionFile);
    if (sameName !== undefined) {
      throw new EvalInputError(
        "TRUTH_UNMATCHED",
        truth.file,
        `${truth.file} is for ${truth.sessionFile} with sha256 ${truth.sha256}, but ${sameName.file} hashes to ${sameName.sha256}: the session is not the file the truth was written for`,
      );
    }
    if (!fromDir) {
      throw new EvalInputError(
        "TRUTH_UNMATCHED",
        truth.file,
        `${truth.file} (for ${truth.sessionFile}, sha256 ${truth.sha256.slice(0, 12)}…) matches none of the sessions given: pass that session, or leave the truth file out`,
      );
    }
    unused.push(truth.file);
  }
  return { bySession, unused };
}
