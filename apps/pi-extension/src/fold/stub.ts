// The text that stands in for a folded block in what the model receives. A pure function of the span
// and the block text: the same fold renders byte-identically on every later call and after a restart,
// so the provider's prompt cache keeps hitting.
import { firstLine } from "@context-fold/extractors";

/** What a stub needs to know about its folded block. */
export interface StubSpan {
  readonly code: string;
  readonly kind: "toolResult" | "thinking";
  readonly tool?: string | undefined;
  readonly bytes: number;
  readonly lines: number;
}

/** Every stub starts with this, so tests and tools can find folds in a transcript. */
export const STUB_PREFIX = "[context-fold ";

/** The first line shown in a stub is clipped to this many characters. */
export const STUB_FIRST_LINE_MAX = 160;

function clip(line: string): string {
  return line.length <= STUB_FIRST_LINE_MAX ? line : `${line.slice(0, STUB_FIRST_LINE_MAX - 1)}…`;
}

/** Stub text for a folded block whose full text is `text`. */
export function renderStub(span: StubSpan, text: string): string {
  const what = span.kind === "thinking" ? "thinking" : `tool output${span.tool === undefined ? "" : ` of ${span.tool}`}`;
  const head = `${STUB_PREFIX}${span.code}] folded ${what}: ${String(span.bytes)} bytes, ${String(span.lines)} lines.`;
  const first = clip(firstLine(text));
  const lines = [head];
  if (first.length > 0) lines.push(`First line: ${first}`);
  lines.push(`Full text: call context_recall with {"code":"${span.code}"}.`);
  return lines.join("\n");
}
