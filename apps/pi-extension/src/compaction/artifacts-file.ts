// Durable artifacts on disk, beside the seed index: replaced atomically (summary-formatter's
// writeFileAtomically: temp file, fsync, rename, fsync of the folder), so a crash leaves the previous
// version or the new one, never a torn file.
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { DurableArtifacts } from "@context-fold/extractors";
import { writeFileAtomically } from "@context-fold/summary-formatter";

/** File name of the artifacts, in the seed index's folder. */
export const ARTIFACTS_FILE = "durable-artifacts.json";

/** What the file holds: the artifacts and how far into the session (#N) they were extracted. */
export interface ArtifactsDocument {
  readonly v: 1;
  readonly session: string;
  /** ISO time taken from the session (last entry read), never the clock. */
  readonly at: string;
  /** #N of the last block the artifacts cover (-1: none). */
  readonly lastIndex: number;
  readonly artifacts: DurableArtifacts;
}

export type ArtifactsFileErrorCode = "ARTIFACTS_UNREADABLE" | "ARTIFACTS_INVALID" | "ARTIFACTS_WRITE_FAILED";

export class ArtifactsFileError extends Error {
  readonly code: ArtifactsFileErrorCode;
  readonly file: string;
  constructor(code: ArtifactsFileErrorCode, file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = "ArtifactsFileError";
    this.code = code;
    this.file = file;
  }
}

/** `<seed index folder>/durable-artifacts.json`. */
export function artifactsPath(seedIndex: string): string {
  return join(dirname(seedIndex), ARTIFACTS_FILE);
}

const LISTS = ["initialPrompts", "corrections", "errorLedger", "workingCommands", "hexConstants", "files"] as const;

function isDocument(value: unknown): value is ArtifactsDocument {
  if (typeof value !== "object" || value === null) return false;
  const v = value as Record<string, unknown>;
  const artifacts = v["artifacts"] as Record<string, unknown> | undefined;
  return (
    v["v"] === 1 &&
    typeof v["session"] === "string" &&
    typeof v["at"] === "string" &&
    typeof v["lastIndex"] === "number" &&
    typeof artifacts === "object" &&
    artifacts !== null &&
    LISTS.every((key) => Array.isArray(artifacts[key]))
  );
}

/** The artifacts file, or undefined when there is none yet. Throws ArtifactsFileError when it is damaged. */
export async function readArtifactsFile(file: string): Promise<ArtifactsDocument | undefined> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as { code?: unknown }).code === "ENOENT") return undefined;
    throw new ArtifactsFileError("ARTIFACTS_UNREADABLE", file, error instanceof Error ? error.message : String(error));
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ArtifactsFileError("ARTIFACTS_INVALID", file, `not JSON (${error instanceof Error ? error.message : String(error)}); delete it and it is rebuilt from the session`);
  }
  if (!isDocument(value)) throw new ArtifactsFileError("ARTIFACTS_INVALID", file, "not a durable-artifacts v1 document; delete it and it is rebuilt from the session");
  return value;
}

/** The file's exact text for `doc` (deterministic: same document, same bytes). */
export function serializeArtifacts(doc: ArtifactsDocument): string {
  return `${JSON.stringify(doc, null, 1)}\n`;
}

/**
 * Replace the artifacts file atomically and durably (resolves once the new file is on disk). `text`: the
 * document already serialized by the caller (`serializeArtifacts(doc)`), so it is not serialized twice.
 */
export async function writeArtifactsFile(file: string, doc: ArtifactsDocument, text: string = serializeArtifacts(doc)): Promise<void> {
  try {
    await writeFileAtomically(file, text);
  } catch (error) {
    throw new ArtifactsFileError("ARTIFACTS_WRITE_FAILED", file, error instanceof Error ? error.message : String(error));
  }
}
