// The `--needles <manifest.json>` input: the generator's ground-truth manifest, read as plain JSON and
// checked field by field (the CLI never imports the generator; only the shape is shared).
import { readFile } from "node:fs/promises";

export type EvalNeedleKind = "identifier" | "hex" | "error-line" | "decision";

export interface ManifestNeedle {
  readonly kind: EvalNeedleKind;
  readonly value: string;
  readonly anchor?: string;
  readonly entryId: string;
  readonly onLineage: boolean;
}

/** The fields of a session-gen manifest the evaluation uses. */
export interface EvalManifest {
  readonly sessionId: string;
  readonly errorsOpenAtEnd: readonly string[];
  readonly needles: readonly ManifestNeedle[];
  /** Kept for cross-checks (tests compare the ledger readings with them). */
  readonly foundingRequest?: string;
  readonly corrections?: readonly string[];
  readonly commits?: readonly { readonly hash: string; readonly subject: string }[];
}

export type EvalInputErrorCode = "MANIFEST_UNREADABLE" | "MANIFEST_INVALID" | "MANIFEST_UNMATCHED" | "TRUTH_UNREADABLE" | "TRUTH_INVALID" | "TRUTH_UNMATCHED";

export class EvalInputError extends Error {
  readonly code: EvalInputErrorCode;
  readonly file: string;
  constructor(code: EvalInputErrorCode, file: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "EvalInputError";
    this.code = code;
    this.file = file;
  }
}

const KINDS: ReadonlySet<string> = new Set(["identifier", "hex", "error-line", "decision"]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function strings(file: string, value: unknown, field: string): string[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string"))
    throw new EvalInputError("MANIFEST_INVALID", file, `${file}: "${field}" must be an array of strings`);
  return value as string[];
}

/** Checks a parsed manifest; `file` labels the errors. */
export function parseEvalManifest(file: string, value: unknown): EvalManifest {
  if (!isRecord(value)) throw new EvalInputError("MANIFEST_INVALID", file, `${file}: a manifest is a JSON object (session-gen --manifest)`);
  const sessionId = value["sessionId"];
  if (typeof sessionId !== "string" || sessionId === "") throw new EvalInputError("MANIFEST_INVALID", file, `${file}: "sessionId" must be a non-empty string`);
  const errorsOpenAtEnd = value["errorsOpenAtEnd"] === undefined ? [] : strings(file, value["errorsOpenAtEnd"], "errorsOpenAtEnd");
  const rawNeedles = value["needles"] ?? [];
  if (!Array.isArray(rawNeedles)) throw new EvalInputError("MANIFEST_INVALID", file, `${file}: "needles" must be an array`);
  const needles: ManifestNeedle[] = rawNeedles.map((n: unknown, i) => {
    if (!isRecord(n) || typeof n["value"] !== "string" || n["value"] === "" || typeof n["entryId"] !== "string" || typeof n["kind"] !== "string" || !KINDS.has(n["kind"]))
      throw new EvalInputError("MANIFEST_INVALID", file, `${file}: needles[${String(i)}] needs kind (identifier|hex|error-line|decision), a non-empty value and entryId`);
    const anchor = n["anchor"];
    return {
      kind: n["kind"] as EvalNeedleKind,
      value: n["value"],
      entryId: n["entryId"],
      onLineage: n["onLineage"] !== false,
      ...(typeof anchor === "string" ? { anchor } : {}),
    };
  });
  const manifest: {
    sessionId: string;
    errorsOpenAtEnd: string[];
    needles: ManifestNeedle[];
    foundingRequest?: string;
    corrections?: string[];
    commits?: { hash: string; subject: string }[];
  } = { sessionId, errorsOpenAtEnd, needles };
  if (typeof value["foundingRequest"] === "string") manifest.foundingRequest = value["foundingRequest"];
  if (value["corrections"] !== undefined) manifest.corrections = strings(file, value["corrections"], "corrections");
  const commits = value["commits"];
  if (Array.isArray(commits))
    manifest.commits = commits.filter(isRecord).flatMap((c) => (typeof c["hash"] === "string" ? [{ hash: c["hash"], subject: typeof c["subject"] === "string" ? c["subject"] : "" }] : []));
  return manifest;
}

export async function readEvalManifest(file: string): Promise<EvalManifest> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new EvalInputError("MANIFEST_UNREADABLE", file, `cannot read --needles ${file}: ${(error as Error).message}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EvalInputError("MANIFEST_INVALID", file, `${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseEvalManifest(file, value);
}
