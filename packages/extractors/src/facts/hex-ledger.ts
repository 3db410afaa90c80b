// Hex constants (colours, addresses, ids) worth keeping verbatim: what people wrote first, and a few from
// tool output, so magic numbers in code never crowd out what people wrote.
import { hexLiterals, hexTokens, isCommitHash } from "../artifacts/hex-constants.js";
import type { HexConstant } from "./types.js";

const MAX_HEX = 64;
/** Of which at most this many from tool output. */
const MAX_HEX_FROM_TOOLS = 24;

export class HexLedger {
  private readonly hex = new Map<string, HexConstant>();
  private fromTools = 0;

  /** From a user message or assistant text. */
  addText(text: string, index: number): void {
    if (this.hex.size >= MAX_HEX) return;
    for (const value of hexTokens(text)) {
      const k = value.toLowerCase();
      if (this.hex.has(k) || this.hex.size >= MAX_HEX) continue;
      this.hex.set(k, { value, index });
    }
  }

  /** From tool output: literals only (`0x…`, `#…`), from its first 64 KB. */
  addToolOutput(text: string, index: number): void {
    if (this.fromTools >= MAX_HEX_FROM_TOOLS || this.hex.size >= MAX_HEX) return;
    for (const value of hexLiterals(text.length > 64 * 1024 ? text.slice(0, 64 * 1024) : text)) {
      const k = value.toLowerCase();
      if (this.hex.has(k) || this.hex.size >= MAX_HEX || this.fromTools >= MAX_HEX_FROM_TOOLS) continue;
      this.hex.set(k, { value, index });
      this.fromTools++;
    }
  }

  /** The constants kept, minus bare hex words that are the session's own commit hashes. */
  constants(commitHashes: readonly string[]): HexConstant[] {
    return [...this.hex.values()].filter(
      (h) => h.value.startsWith("#") || h.value.startsWith("0x") || h.value.startsWith("0X") || !isCommitHash(h.value, commitHashes),
    );
  }
}
