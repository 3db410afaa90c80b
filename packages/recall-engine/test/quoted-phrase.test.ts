// A quoted phrase is literal text even when it holds regex marks: a line pasted from a read tool's
// hash-prefixed output (`12ab|    raise Foo`) is found as the phrase, on a session Pi's SessionManager wrote.
import { readSession } from "@context-fold/ledger-reader";
import { LINEAR_TIME_MS } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { looksLikeRegex, parseQuery, RecallIndex } from "../src/index.js";
import { assistant, toolResult, user, writtenByPi } from "./support/pi-session.js";

// A file read back with a `LINE#HASH|` prefix per line, as hash-anchored read tools print it.
const hashedRead = [
  "1k2p|def fetch_rates(client):",
  "2x9q|    try:",
  "3m7d|        return client.get('/rates')",
  "4c1v|    except RateLimited as limit:",
  "5h8n|        raise limit.with_backoff(self._backoff_policy)",
].join("\n");

function ratesSession(): string {
  return writtenByPi((sm) => {
    sm.appendMessage(user("why does fetch_rates give up instead of retrying?"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "call_read", name: "read", arguments: { path: "rates/client.py" } }]));
    sm.appendMessage(toolResult("call_read", "read", hashedRead));
    sm.appendMessage(assistant([{ type: "text", text: "RateLimited is re-raised with a backoff policy; the caller never retries." }]));
  });
}

describe("a quoted phrase holding regex marks", () => {
  it("is a phrase search, not pi-vcc's regex convention", () => {
    expect(parseQuery('"4c1v| except RateLimited as limit:"').mode).toBe("words");
    expect(parseQuery('"a.*b" and "x|y"').mode).toBe("words");
    // Outside the quotes the convention still applies.
    expect(parseQuery('"rate limit" retry|backoff').mode).toBe("regex");
    expect(parseQuery("4c1v|except").mode).toBe("regex");
  });
  it("stays linear on a megabyte of quotes and bars", { timeout: LINEAR_TIME_MS }, () => {
    expect(looksLikeRegex('"|'.repeat(1 << 19))).toBe(false);
    expect(looksLikeRegex(`${'"a|b"'.repeat(1 << 17)} x|y`)).toBe(true);
  });
  it("finds the pasted hash-prefixed line in the read output", async () => {
    const session = await readSession(ratesSession());
    const index = RecallIndex.build(session);
    const read = session.blocks.find((b) => b.kind === "toolResult" && b.toolName === "read");
    expect(read).toBeDefined();
    for (const query of ['"4c1v| except RateLimited as limit:"', '"5h8n| raise limit.with_backoff(self._backoff_policy)"']) {
      const result = index.search(query);
      expect(result.mode, query).toBe("words");
      expect(result.hits[0]?.index, query).toBe(read?.index);
    }
  });
});
