// The block-text rule: what a span's sha256, log.bytes and log.lines cover, and how to verify a text.
import { hash } from "node:crypto";

/** A string is itself; an array contributes its `text` parts joined by "\n" (images and others skipped). */
export function joinTextParts(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const part of content as unknown[]) {
    if (typeof part === "object" && part !== null) {
      const p = part as { type?: unknown; text?: unknown };
      if (p.type === "text" && typeof p.text === "string") texts.push(p.text);
    }
  }
  return texts.join("\n");
}

/** The text of one assistant content part: `text` of a text part, `thinking` of a thinking part. */
export function assistantPartText(part: unknown): string | undefined {
  if (typeof part !== "object" || part === null) return undefined;
  const p = part as { type?: unknown; text?: unknown; thinking?: unknown };
  if (p.type === "text" && typeof p.text === "string") return p.text;
  if (p.type === "thinking" && typeof p.thinking === "string") return p.thinking;
  return undefined;
}

/** UTF-8 byte length and line count (0 for "", otherwise newlines + 1). */
export function blockLog(text: string): { bytes: number; lines: number } {
  if (text.length === 0) return { bytes: 0, lines: 0 };
  let newlines = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) newlines += 1;
  return { bytes: Buffer.byteLength(text, "utf8"), lines: newlines + 1 };
}

/** Lowercase hex sha256 of the UTF-8 text. */
export function sha256Hex(text: string): string {
  // One-shot hash: no Hash object per block (spans are hashed by the thousand per record).
  return hash("sha256", text, "hex");
}

export interface SpanTextCheck {
  verified: boolean;
  reason?: string;
}

/**
 * Does `text` match the span? Verified only when the span has a sha256 and it matches (and `log`, when
 * given, matches too). A span without sha256 (restored from a pre-v2 record) is never verified.
 */
export function verifySpanText(span: { sha256?: string; log?: { bytes: number; lines: number } }, text: string): SpanTextCheck {
  if (span.sha256 === undefined) return { verified: false, reason: "span has no sha256 (restored from a pre-v2 record); its text is unverified" };
  const actual = sha256Hex(text);
  if (actual !== span.sha256) return { verified: false, reason: `sha256 mismatch: span says ${span.sha256}, text has ${actual}` };
  if (span.log !== undefined) {
    const log = blockLog(text);
    if (log.bytes !== span.log.bytes || log.lines !== span.log.lines) {
      return { verified: false, reason: `log mismatch: span says ${span.log.bytes} bytes / ${span.log.lines} lines, text has ${log.bytes} / ${log.lines}` };
    }
  }
  return { verified: true };
}
