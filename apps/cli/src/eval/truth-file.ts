// The `--truth` input: a hand-written truth file in the format of ../shared/fixtures/real/README.md,
// read as plain JSON and checked field by field. Only the fields the scoring uses are required; the
// rest (notes, details, translations) are carried by the file for its readers, not by us.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { EvalInputError } from "./eval-manifest.js";

/** Where an item sits in the session: an entry id (v2/v3 files) and/or a 1-based line (v1 files have no ids). */
export interface TruthRef {
  readonly entryId: string | null;
  readonly line: number | null;
}

export type DecisionKind = "decision" | "constraint" | "preference" | "correction" | "fact" | "scope-change";
export type Importance = "high" | "medium" | "low";

export interface TruthDecision extends TruthRef {
  readonly text: string;
  /** Words of `text` that must all survive (case-insensitive). */
  readonly key: readonly string[];
  readonly kind: DecisionKind;
  readonly importance: Importance;
}

export interface TruthOpenError extends TruthRef {
  readonly text: string;
  /** Optional words that must all appear for the error to count as named (else the text's identifiers decide). */
  readonly key: readonly string[] | null;
}

export interface TruthCommitItem {
  readonly hash: string;
  readonly subject: string;
  /** The entry whose output reported it, when the truth says. */
  readonly evidence: TruthRef | null;
}

export interface TruthQuestion {
  readonly question: string;
  readonly answer: string;
  readonly evidence: TruthRef;
}

export interface TruthNotFile {
  readonly string: string;
  readonly why: string;
}

/** The fields of a truth file the scoring reads. */
export interface SessionTruth {
  /** The truth file itself. */
  readonly file: string;
  /** The session file name it was written for (`sessionFile`). */
  readonly sessionFile: string;
  readonly sha256: string;
  /** First absolute path of `cwd` (the field may carry prose after it), or null. */
  readonly cwd: string | null;
  readonly foundingRequest: (TruthRef & { readonly text: string }) | null;
  readonly decisions: readonly TruthDecision[];
  readonly modifiedFiles: readonly string[];
  readonly notFiles: readonly TruthNotFile[];
  readonly commits: readonly TruthCommitItem[];
  readonly errorsOpenAtEnd: readonly TruthOpenError[];
  readonly questions: readonly TruthQuestion[];
}

const KINDS: ReadonlySet<string> = new Set(["decision", "constraint", "preference", "correction", "fact", "scope-change"]);
const IMPORTANCE: ReadonlySet<string> = new Set(["high", "medium", "low"]);
const SHA256 = /^[0-9a-f]{64}$/;
const HASH = /^[0-9a-f]{7,40}$/;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalid(file: string, message: string): EvalInputError {
  return new EvalInputError("TRUTH_INVALID", file, `${file}: ${message}`);
}

function nonEmpty(file: string, value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw invalid(file, `${field} must be a non-empty string`);
  return value;
}

function arrayOf(file: string, value: unknown, field: string): unknown[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw invalid(file, `${field} must be an array`);
  return value;
}

/** `{entryId, line}`: at least one of them; entryId a string or null, line a whole number ≥ 1 or null. */
function refOf(file: string, value: Record<string, unknown>, field: string): TruthRef {
  const id = value["entryId"];
  const line = value["line"];
  if (id !== undefined && id !== null && (typeof id !== "string" || id === "")) throw invalid(file, `${field}.entryId must be a non-empty string or null`);
  if (line !== undefined && line !== null && (typeof line !== "number" || !Number.isInteger(line) || line < 1)) throw invalid(file, `${field}.line must be a whole number ≥ 1 or null`);
  const ref = { entryId: typeof id === "string" ? id : null, line: typeof line === "number" ? line : null };
  if (ref.entryId === null && ref.line === null) throw invalid(file, `${field} needs an entryId or a line`);
  return ref;
}

/** Key words: split on whitespace; each must occur in `text` (case-insensitive), as the format promises. */
function keyWords(file: string, key: unknown, text: string, field: string): string[] {
  const words = nonEmpty(file, key, `${field}.key`).split(/\s+/).filter((w) => w !== "");
  const lower = text.toLowerCase();
  for (const w of words) if (!lower.includes(w.toLowerCase())) throw invalid(file, `${field}.key word "${w}" does not occur in its text`);
  return words;
}

/** The first token of `cwd` when it is an absolute path (truth files may explain the cwd after it). */
function cwdOf(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const first = value.trim().split(/\s+/)[0] ?? "";
  return first.startsWith("/") ? first.replace(/\/+$/, "") || "/" : null;
}

/** Checks a parsed truth file; `file` labels the errors. */
export function parseTruthFile(file: string, value: unknown): SessionTruth {
  if (!isRecord(value)) throw invalid(file, "a truth file is a JSON object (see ../shared/fixtures/real/README.md)");
  const sessionFile = nonEmpty(file, value["sessionFile"], "sessionFile");
  const sha256 = nonEmpty(file, value["sha256"], "sha256").toLowerCase();
  if (!SHA256.test(sha256)) throw invalid(file, "sha256 must be 64 hex digits (the session file's hash)");

  const f = value["foundingRequest"];
  let foundingRequest: SessionTruth["foundingRequest"] = null;
  if (f !== null && f !== undefined) {
    if (!isRecord(f)) throw invalid(file, "foundingRequest must be an object or null");
    foundingRequest = { ...refOf(file, f, "foundingRequest"), text: nonEmpty(file, f["text"], "foundingRequest.text") };
  }

  const decisions = arrayOf(file, value["userDecisions"], "userDecisions").map((d, i): TruthDecision => {
    const at = `userDecisions[${String(i)}]`;
    if (!isRecord(d)) throw invalid(file, `${at} must be an object`);
    const text = nonEmpty(file, d["text"], `${at}.text`);
    const kind = d["kind"];
    const importance = d["importance"];
    if (typeof kind !== "string" || !KINDS.has(kind)) throw invalid(file, `${at}.kind must be one of ${[...KINDS].join(", ")}`);
    if (typeof importance !== "string" || !IMPORTANCE.has(importance)) throw invalid(file, `${at}.importance must be high, medium or low`);
    return { ...refOf(file, d, at), text, key: keyWords(file, d["key"], text, at), kind: kind as DecisionKind, importance: importance as Importance };
  });

  const modifiedFiles = arrayOf(file, value["modifiedFiles"], "modifiedFiles").map((p, i) => nonEmpty(file, p, `modifiedFiles[${String(i)}]`));
  const notFiles = arrayOf(file, value["notFiles"], "notFiles").map((n, i): TruthNotFile => {
    if (!isRecord(n)) throw invalid(file, `notFiles[${String(i)}] must be {string, why}`);
    return { string: nonEmpty(file, n["string"], `notFiles[${String(i)}].string`), why: typeof n["why"] === "string" ? n["why"] : "" };
  });
  const commits = arrayOf(file, value["commits"], "commits").map((c, i): TruthCommitItem => {
    if (!isRecord(c)) throw invalid(file, `commits[${String(i)}] must be {hash, subject}`);
    const hash = nonEmpty(file, c["hash"], `commits[${String(i)}].hash`).toLowerCase();
    if (!HASH.test(hash)) throw invalid(file, `commits[${String(i)}].hash must be 7-40 hex digits`);
    const evidence = isRecord(c["evidence"]) ? refOf(file, c["evidence"], `commits[${String(i)}].evidence`) : null;
    return { hash, subject: typeof c["subject"] === "string" ? c["subject"] : "", evidence };
  });
  const errorsOpenAtEnd = arrayOf(file, value["errorsOpenAtEnd"], "errorsOpenAtEnd").map((e, i): TruthOpenError => {
    const at = `errorsOpenAtEnd[${String(i)}]`;
    if (!isRecord(e)) throw invalid(file, `${at} must be an object`);
    const text = nonEmpty(file, e["text"], `${at}.text`);
    return { ...refOf(file, e, at), text, key: e["key"] === undefined ? null : keyWords(file, e["key"], text, at) };
  });
  const questions = arrayOf(file, value["questions"], "questions").map((q, i): TruthQuestion => {
    const at = `questions[${String(i)}]`;
    if (!isRecord(q) || !isRecord(q["evidence"])) throw invalid(file, `${at} must be {question, answer, evidence: {entryId, line}}`);
    return {
      question: nonEmpty(file, q["question"], `${at}.question`),
      answer: nonEmpty(file, q["answer"], `${at}.answer`),
      evidence: refOf(file, q["evidence"], `${at}.evidence`),
    };
  });
  return { file, sessionFile, sha256, cwd: cwdOf(value["cwd"]), foundingRequest, decisions, modifiedFiles, notFiles, commits, errorsOpenAtEnd, questions };
}

export async function readTruthFile(file: string): Promise<SessionTruth> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    throw new EvalInputError("TRUTH_UNREADABLE", file, `cannot read --truth ${file}: ${(error as Error).message}`, { cause: error });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new EvalInputError("TRUTH_INVALID", file, `${file} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return parseTruthFile(file, value);
}

/** sha256 of a file's bytes, hex: what a truth file's `sha256` names. */
export async function fileSha256(path: string): Promise<string> {
  return createHash("sha256").update(await readFile(path)).digest("hex");
}
