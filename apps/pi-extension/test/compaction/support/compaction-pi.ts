// Helpers for compaction tests in a real headless Pi: a scripted model (bash jobs with large outputs,
// anything else answered "ok"), environment for the extension's factory, and waits on Pi's entries.
import { type AssistantMessage, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import type { SessionManager } from "@earendil-works/pi-coding-agent";
import { readSeedIndexFile, type FoldIndexRecord, type FoldRetractRecord } from "@context-fold/seed-index-format";
import { type HeadlessOptions, type HeadlessPi, startPi } from "../../support/headless-pi.js";

/** The founding request: said once, first, and expected verbatim in every digest. */
export const FOUNDING = "Build the frobnicator service in src/frob.ts: keep the public API stable, never edit vendor/, and log every retry (ticket FROB-7f3a).";

/** A bash command printing `lines` lines of about 60 chars for job n. */
export function jobCommand(n: number, lines = 120): string {
  return `seq -f 'job ${String(n)} row %g: the quick brown fox jumps over the lazy dog' 1 ${String(lines)}`;
}

/** A message's text: its string content, or its text parts joined by newlines. */
export function textOf(message: Record<string, unknown> | undefined): string {
  const content = message?.["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
}

let replies = 0;
function reply(content: Parameters<typeof fauxAssistantMessage>[0], toolUse: boolean): AssistantMessage {
  replies += 1;
  return fauxAssistantMessage(content, { responseId: `cresp_${String(replies).padStart(4, "0")}`, stopReason: toolUse ? "toolUse" : "stop" });
}

/** `job N` → bash; a tool result → "job done"; anything else (a summary request too) → a short text. */
export function jobModel(messages: readonly Record<string, unknown>[]): AssistantMessage {
  const last = messages[messages.length - 1];
  if (last?.["role"] === "toolResult") return reply(fauxText("job done, next: run the following job"), false);
  const job = /^job (\d+)$/.exec(textOf(last).trim());
  if (job !== null) {
    const n = Number(job[1]);
    return reply([fauxToolCall("bash", { command: jobCommand(n) }, { id: `cjob_${String(n)}_${String(replies)}` })], true);
  }
  return reply(fauxText("ok"), false);
}

/** Start Pi with `env` set while the extension's factory reads it (restored afterwards). */
/** A faux model's request is Pi's summary request when no system message declares the agent's tools. */
export function isSummaryRequest(messages: readonly Record<string, unknown>[]): boolean {
  return !messages.some((m) => m["role"] === "system" && Array.isArray(m["toolsAdded"]) && m["toolsAdded"].length > 0);
}

export async function startPiWith(env: Record<string, string>, options: HeadlessOptions): Promise<HeadlessPi> {
  const saved = new Map<string, string | undefined>();
  for (const [key, value] of Object.entries(env)) {
    saved.set(key, process.env[key]);
    process.env[key] = value;
  }
  try {
    return await startPi(options);
  } finally {
    for (const [key, value] of saved) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
}

export interface CompactionEntryView {
  readonly id: string;
  readonly summary: string;
  readonly fromHook: boolean;
  readonly firstKeptEntryId: string;
  readonly details: Record<string, unknown> | undefined;
}

export function compactions(manager: SessionManager): CompactionEntryView[] {
  return manager.getEntries().flatMap((e) =>
    e.type === "compaction"
      ? [{ id: e.id, summary: e.summary, fromHook: e.fromHook === true, firstKeptEntryId: e.firstKeptEntryId, details: e.details as Record<string, unknown> | undefined }]
      : [],
  );
}

/** custom_message entries of one customType. */
export function customMessages(manager: SessionManager, customType: string): { content: string; display: boolean }[] {
  return manager.getEntries().flatMap((e) =>
    e.type === "custom_message" && e.customType === customType ? [{ content: typeof e.content === "string" ? e.content : JSON.stringify(e.content), display: e.display }] : [],
  );
}

/** Wait until `check` holds (Pi runs `ctx.compact` without awaiting it). */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
  const start = performance.now();
  while (!check()) {
    if (performance.now() - start > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

export type SeedLine = { kind: "record"; record: FoldIndexRecord } | { kind: "retract"; record: FoldRetractRecord };

/** Every understood line of a seed index, in file order. */
export async function seedLines(file: string): Promise<SeedLine[]> {
  const { outcomes } = await readSeedIndexFile(file);
  const out: SeedLine[] = [];
  for (const o of outcomes) {
    if (o.outcome === "record") out.push({ kind: "record", record: o.record });
    else if (o.outcome === "retract") out.push({ kind: "retract", record: o.record });
  }
  return out;
}
