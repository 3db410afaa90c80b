// `--json` output of any size: exactly the bytes of `JSON.stringify(value, null, 2)`, but a document longer
// than a string may be (V8 refuses strings past ~512 MiB: `inventory --json` on a 1 GB session listed more)
// is written in pieces, each array element and object member serialized on its own.

/** Pieces above this many characters are split further (far below V8's limit, so a piece always fits). */
export const JSON_PIECE_CHARS = 64 * 1024 * 1024;

function isPlainContainer(value: unknown): value is Record<string, unknown> | unknown[] {
  return typeof value === "object" && value !== null;
}

/** What JSON.stringify serializes in place of `value` under `key` (its toJSON, if any). */
function jsonValue(value: unknown, key: string): unknown {
  if (isPlainContainer(value) && typeof (value as { toJSON?: unknown }).toJSON === "function") return (value as { toJSON: (k: string) => unknown }).toJSON(key);
  return value;
}

/** Containers written member by member without first trying them whole (see `pieceByPiece`). */
const byPieces = new WeakSet<object>();

/**
 * Marks `value` (an object or array) to be written member by member, never first stringified whole:
 * for a document known to be long whose elements are made as they are read (an inventory's lazily made
 * items), where a whole try would make every element and a string of the whole document before giving up.
 * The bytes written are the same.
 */
export function pieceByPiece<T extends object>(value: T): T {
  byPieces.add(value);
  return value;
}

/** JSON.stringify(value, null, 2), or undefined when it is too long for one string (or over `limit`). */
function whole(value: unknown, limit: number): string | undefined {
  if (isPlainContainer(value) && byPieces.has(value)) return undefined;
  try {
    const text = JSON.stringify(value, null, 2) as string | undefined;
    return text !== undefined && text.length > limit && isPlainContainer(value) ? undefined : text;
  } catch (error) {
    if (error instanceof RangeError && isPlainContainer(value)) return undefined;
    throw error;
  }
}

/**
 * Writes `JSON.stringify(value, null, 2)` through `write`, in pieces of at most about `limit` characters
 * where the document is longer (a single string value longer than that stays one piece).
 */
export function writeJson(value: unknown, write: (piece: string) => void, limit = JSON_PIECE_CHARS): void {
  const emit = (v: unknown, key: string, pad: string): boolean => {
    const resolved = jsonValue(v, key);
    const text = whole(resolved, limit);
    if (text !== undefined) {
      write(pad === "" ? text : text.replaceAll("\n", `\n${pad}`));
      return true;
    }
    if (!isPlainContainer(resolved)) return false; // undefined, a function or a symbol: JSON leaves it out
    const inner = `${pad}  `;
    if (Array.isArray(resolved)) {
      if (resolved.length === 0) {
        write("[]");
        return true;
      }
      write("[");
      resolved.forEach((item, i) => {
        write(`${i === 0 ? "" : ","}\n${inner}`);
        if (!emit(item, String(i), inner)) write("null");
      });
      write(`\n${pad}]`);
      return true;
    }
    let first = true;
    write("{");
    for (const [k, item] of Object.entries(resolved)) {
      const member = jsonValue(item, k);
      if (member === undefined || typeof member === "function" || typeof member === "symbol") continue;
      write(`${first ? "" : ","}\n${inner}${JSON.stringify(k)}: `);
      first = false;
      emit(item, k, inner);
    }
    write(first ? "}" : `\n${pad}}`);
    return true;
  };
  emit(value, "", "");
}
