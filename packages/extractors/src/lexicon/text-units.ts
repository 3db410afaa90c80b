// A string's UTF-16 units copied into a reusable typed array. The scanners' character walks read the
// array rather than `charCodeAt`: an element load where each `charCodeAt` checks the string's shape
// (one- or two-byte, sliced, cons), about twice as fast over a session's text. The copy is one native
// call (Buffer's utf16le write keeps every unit as is, lone surrogates included).
import { Buffer } from "node:buffer";

/** Longest text whose buffer is kept for the next load (units); a longer one gets a buffer of its own. */
const KEPT_UNITS = 1 << 20;

export class TextUnits {
  private bytes = Buffer.from(new ArrayBuffer(1 << 16));
  private array = new Uint16Array(this.bytes.buffer, 0, this.bytes.length >> 1);

  /**
   * The units of `text` at [0, text.length) of the array returned (entries past it are stale). The
   * array is this object's and is overwritten by the next `load`: read it before loading another text.
   */
  load(text: string): Uint16Array {
    if (text.length > KEPT_UNITS) {
      // Held only by the caller: a module-wide scanner does not keep a 1 GB session's largest output's worth.
      const array = new Uint16Array(text.length);
      Buffer.from(array.buffer).write(text, 0, "utf16le");
      return array;
    }
    if (text.length > this.array.length) {
      const size = Math.min(KEPT_UNITS, Math.max(text.length, this.array.length * 2));
      this.bytes = Buffer.from(new ArrayBuffer(size * 2));
      this.array = new Uint16Array(this.bytes.buffer, 0, size);
    }
    if (text.length > 0) this.bytes.write(text, 0, "utf16le");
    return this.array;
  }
}
