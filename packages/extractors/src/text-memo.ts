// A pure function of one string, remembered for the strings it was last asked about. A live session
// asks the same questions of the same texts at every compaction (a statement's key, its one-line
// rendering): computed once, when the text is first seen (usually as its turn is fed), they cost a Map
// lookup afterwards. Bounded: when full, the memory is dropped whole and refills from what is still
// asked, so it never holds more than `capacity` answers. Results are the function's, so output is the
// same with or without it.

/** `fn` remembered for up to `capacity` distinct inputs (the least recently first-seen forgotten first). */
export function memoizeText<T>(fn: (text: string) => T, capacity = 4096): (text: string) => T {
  let older = new Map<string, T>();
  let current = new Map<string, T>();
  return (text: string): T => {
    const hit = current.get(text);
    if (hit !== undefined) return hit;
    let value = older.get(text);
    if (value === undefined) value = fn(text);
    // Two generations: what is still asked moves to the current one; the older one is dropped when the
    // current one fills, so the working set survives a turnover.
    if (current.size >= capacity) {
      older = current;
      current = new Map();
    }
    current.set(text, value);
    return value;
  };
}

/**
 * `fn` of a text and one more argument, remembered for each owner asking (an object, found by identity:
 * no text is hashed) while that owner lives (a WeakMap: the memory holds no block alive), each answer
 * with the text and argument it was made of (compared with `===`), so an owner asking of another text or
 * argument gets it computed again. A turn's blocks are read at its end into the kept tail's facts (the
 * compaction's tail, `outsideFacts`) and again when the next turn feeds them to the session's facts: the
 * second read finds the first's answers. Pure answers (never mutated by their callers), so facts are the
 * same with or without.
 */
export function memoizeByOwner<A, T>(fn: (text: string, arg: A) => T): (owner: object, text: string, arg: A) => T {
  const held = new WeakMap<object, { text: string; arg: A; value: T }>();
  return (owner: object, text: string, arg: A): T => {
    const hit = held.get(owner);
    if (hit !== undefined && hit.text === text && hit.arg === arg) return hit.value;
    const value = fn(text, arg);
    held.set(owner, { text, arg, value });
    return value;
  };
}
