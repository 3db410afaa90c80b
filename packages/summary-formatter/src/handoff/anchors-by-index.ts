// The anchors a streamed handoff keeps of its lineage's blocks (`#N` → anchor), for the few blocks the
// doc's pointers name once the facts are known. A 1 GB session's lineage has about a million: each kept
// as a string of its own cost 71 bytes (the anchor built as "r:" + the tool call id holds both), 71 MB
// under the end of the stream. Here they are joined a chunk at a time into one string, with their `#N`
// and where each ends in two typed arrays: some 41 bytes each.
const CHUNK = 4096;

/** `{index, anchor}` pairs added with ascending `index`, iterated in that order. */
export class AnchorsByIndex implements Iterable<{ readonly index: number; readonly anchor: string }> {
  private indices = new Int32Array(1024);
  /** Where anchor k ends in its chunk's text (it starts where anchor k - 1 ends, or at 0 first in a chunk). */
  private ends = new Int32Array(1024);
  private readonly chunks: string[] = [];
  private pending: string[] = [];
  private count = 0;

  add(index: number, anchor: string): void {
    const k = this.count;
    if (k === this.indices.length) {
      this.indices = grown(this.indices);
      this.ends = grown(this.ends);
    }
    this.indices[k] = index;
    this.ends[k] = (k % CHUNK === 0 ? 0 : (this.ends[k - 1] as number)) + anchor.length;
    this.pending.push(anchor);
    this.count = k + 1;
    if (this.pending.length === CHUNK) {
      this.chunks.push(this.pending.join(""));
      this.pending = [];
    }
  }

  *[Symbol.iterator](): Generator<{ readonly index: number; readonly anchor: string }, void, undefined> {
    let text = "";
    for (let k = 0; k < this.count; k++) {
      const c = Math.floor(k / CHUNK);
      if (k % CHUNK === 0) text = c < this.chunks.length ? (this.chunks[c] as string) : this.pending.join("");
      const start = k % CHUNK === 0 ? 0 : (this.ends[k - 1] as number);
      yield { index: this.indices[k] as number, anchor: text.slice(start, this.ends[k]) };
    }
  }
}

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const out = new Int32Array(array.length * 2);
  out.set(array);
  return out;
}
