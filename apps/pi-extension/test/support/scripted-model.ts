// The scripted "model" of the tests: reads the last message Pi sent and answers like an agent would —
// a large bash output per job (with a needle in the middle), recall by fold code when asked.
import { type AssistantMessage, fauxAssistantMessage, fauxText, fauxThinking, fauxToolCall } from "@earendil-works/pi-ai";

export const STUB_RE_SOURCE = String.raw`\[context-fold ([a-z2-7]{10,12})\]`;

/** The needle printed in the middle of job `n`'s output. */
export function needle(n: number): string {
  return `NEEDLE-${String(n)}-${(0x5eed00 + n * 7919).toString(16)}`;
}

/** A bash command printing ~`lines` lines of ~60 chars with job n's needle in the middle. */
export function jobCommand(n: number, lines = 140): string {
  const half = Math.floor(lines / 2);
  const row = `job ${String(n)} row %g: the quick brown fox jumps over the lazy dog`;
  return `seq -f '${row}' 1 ${String(half)}; echo '${needle(n)}'; seq -f '${row}' ${String(half + 1)} ${String(lines)}`;
}

function textOf(message: Record<string, unknown> | undefined): string {
  const content = message?.["content"];
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p: { type?: string; text?: string }) => (p.type === "text" ? (p.text ?? "") : "")).join("\n");
}

/** Long deterministic thinking for job n (folds like tool output once stale). */
export function thinkingFor(n: number): string {
  return Array.from({ length: 30 }, (_, i) => `thinking about job ${String(n)} step ${String(i)}: compare the outputs and plan the next command`).join("\n");
}

let responses = 0;
function reply(content: Parameters<typeof fauxAssistantMessage>[0], toolUse: boolean): AssistantMessage {
  responses += 1;
  return fauxAssistantMessage(content, { responseId: `resp_${String(responses).padStart(4, "0")}`, stopReason: toolUse ? "toolUse" : "stop" });
}

/**
 * Answers by the last message: `job N` → thinking + bash; `recall code C` → context_recall(C);
 * `recall first` → context_recall with the first fold code visible; a tool result → a short text.
 */
export function scriptedModel(messages: readonly Record<string, unknown>[]): AssistantMessage {
  const last = messages[messages.length - 1];
  const role = last?.["role"];
  if (role === "toolResult") return reply(fauxText(`noted ${String(last?.["toolName"])} output`), false);
  const text = textOf(last);
  const job = /^job (\d+)$/.exec(text.trim());
  if (job !== null) {
    const n = Number(job[1]);
    return reply([fauxThinking(thinkingFor(n)), fauxToolCall("bash", { command: jobCommand(n) }, { id: `call_job_${String(n)}` })], true);
  }
  const byCode = /^recall code ([a-z2-7]+)$/.exec(text.trim());
  if (byCode !== null) return reply([fauxToolCall("context_recall", { code: byCode[1] ?? "" }, { id: `call_recall_${byCode[1] ?? ""}` })], true);
  if (text.trim() === "recall first") {
    const stub = new RegExp(STUB_RE_SOURCE);
    for (const message of messages) {
      if (message["role"] !== "toolResult") continue;
      const m = stub.exec(textOf(message));
      if (m !== null) return reply([fauxToolCall("context_recall", { code: m[1] ?? "" }, { id: "call_recall_first" })], true);
    }
    return reply(fauxText("no fold visible"), false);
  }
  return reply(fauxText("ok"), false);
}
