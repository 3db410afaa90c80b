// The one token estimator every budget in this package is measured with: ceil(UTF-8 bytes / 4).
// Pi and pi-vcc both use a chars/4 heuristic; bytes/4 is the same for ASCII and never under-counts
// multi-byte text, so "within budget" by this measure stays within budget by theirs.

const encoder = new TextEncoder();

/** UTF-8 byte length of `text`, without allocating for pure-ASCII strings. */
export function utf8Bytes(text: string): number {
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  return ascii ? text.length : encoder.encode(text).length;
}

/** Estimated tokens of `text`: ceil(UTF-8 bytes / 4). */
export function estimateTokens(text: string): number {
  return Math.ceil(utf8Bytes(text) / 4);
}

/** Estimated tokens of a byte count. */
export function tokensOfBytes(bytes: number): number {
  return Math.ceil(bytes / 4);
}
