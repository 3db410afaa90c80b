// Small typed arrays carved out of shared chunks. Each typed array or Buffer past 64 bytes made on its
// own gets a backing store of its own, allocated outside V8's heap and tracked by its collector: some
// 10 µs apiece on the bench machine (a view on an existing buffer: under 1 µs). A history search makes a
// dozen per session it opens (a segment's directory starts and lengths, its postings, its block table's
// columns): at a hundred sessions, a good part of the search. Those made here share chunks of CHUNK
// bytes, carved in order and never reused, so each starts zeroed as a new array does; a chunk lives
// while any array carved from it does (arrays past SHARED_MAX get a store of their own, so a chunk holds
// none larger, and a long-lived array keeps at most a chunk's worth of its neighbours alive).

/** Bytes of one shared chunk. */
const CHUNK = 64 * 1024;
/** The largest array (in bytes) carved from a chunk; larger ones are made on their own. */
const SHARED_MAX = 8 * 1024;

let chunk = new ArrayBuffer(0);
let used = 0;

/** `bytes` zeroed bytes at an offset aligned for any element size: [buffer, offset], or null when too large to share. */
function carve(bytes: number): [ArrayBuffer, number] | null {
  if (bytes > SHARED_MAX) return null;
  const at = (used + 7) & ~7;
  if (at + bytes > chunk.byteLength) {
    chunk = new ArrayBuffer(CHUNK);
    used = bytes;
    return [chunk, 0];
  }
  used = at + bytes;
  return [chunk, at];
}

/** A zeroed Uint32Array of `n` elements. */
export function smallUint32(n: number): Uint32Array {
  const at = carve(4 * n);
  return at === null ? new Uint32Array(n) : new Uint32Array(at[0], at[1], n);
}

/** A zeroed Float64Array of `n` elements. */
export function smallFloat64(n: number): Float64Array {
  const at = carve(8 * n);
  return at === null ? new Float64Array(n) : new Float64Array(at[0], at[1], n);
}

/** A zeroed Uint8Array of `n` elements. */
export function smallUint8(n: number): Uint8Array {
  const at = carve(n);
  return at === null ? new Uint8Array(n) : new Uint8Array(at[0], at[1], n);
}

/** A copy of `bytes` in a Buffer of its own (as `Buffer.from(bytes)`). */
export function smallCopy(bytes: Uint8Array): Buffer {
  const at = carve(bytes.length);
  if (at === null) return Buffer.from(bytes);
  const out = Buffer.from(at[0], at[1], bytes.length);
  out.set(bytes);
  return out;
}

/** Whether this machine's typed arrays are little-endian, as the history's u32 and i32 columns are written (else they are copied out). */
const LITTLE_ENDIAN = new Uint8Array(Uint32Array.of(1).buffer)[0] === 1;

/**
 * `count` little-endian u32s of `bytes` from byte `at`: a view on its memory where the machine and the
 * alignment allow (the caller keeps `bytes` unchanged while the view lives), else a copy.
 */
export function u32Column(bytes: Uint8Array, at: number, count: number): Uint32Array {
  const offset = bytes.byteOffset + at;
  if (LITTLE_ENDIAN && offset % 4 === 0) return new Uint32Array(bytes.buffer, offset, count);
  const view = new DataView(bytes.buffer, offset, 4 * count);
  const out = smallUint32(count);
  for (let i = 0; i < count; i++) out[i] = view.getUint32(4 * i, true);
  return out;
}

/** `count` little-endian i32s of `bytes` from byte `at`, as `u32Column` (the same bits, read as signed). */
export function i32Column(bytes: Uint8Array, at: number, count: number): Int32Array {
  const column = u32Column(bytes, at, count);
  return new Int32Array(column.buffer, column.byteOffset, count);
}
