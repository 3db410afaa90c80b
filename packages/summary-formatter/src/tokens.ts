// The one token estimator every budget in this package is measured with: ceil(UTF-8 bytes / 4).
// Pi and pi-vcc both use a chars/4 heuristic; bytes/4 is the same for ASCII and never under-counts
// multi-byte text, so "within budget" by this measure stays within budget by theirs.

/** UTF-8 byte length of `text` (native, no copy). */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, "utf8");
}

/** The longest prefix of `text` of at most `maxBytes` UTF-8 bytes that ends on a whole character. */
export function utf8Head(text: string, maxBytes: number): string {
  let room = Math.max(0, maxBytes);
  let end = 0;
  for (const ch of text) {
    const b = utf8Bytes(ch);
    if (b > room) break;
    room -= b;
    end += ch.length;
  }
  return text.slice(0, end);
}

/** Estimated tokens of `text`: ceil(UTF-8 bytes / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8Bytes(text) / 4);
}

/** Estimated tokens of a byte count. */
export function tokensOfBytes(bytes: number): number {
  return Math.ceil(bytes / 4);
}
