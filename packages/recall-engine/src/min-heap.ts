// A binary min-heap over an order given as `before(a, b)`: the k-way merges of spilled runs (the recall
// index's postings runs, the history dictionary's runs) take the least cursor from it, one home for both.

export class MinHeap<T> {
  readonly items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let k = items.length - 1;
    while (k > 0) {
      const up = (k - 1) >> 1;
      if (!this.before(items[k] as T, items[up] as T)) break;
      [items[k], items[up]] = [items[up] as T, items[k] as T];
      k = up;
    }
  }

  /** Takes the least item out. */
  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last !== undefined) {
      items[0] = last;
      this.down();
    }
    return top;
  }

  /** Restores the order after the least item moved later (a cursor that read its next key). */
  reorderTop(): void {
    if (this.items.length > 1) this.down();
  }

  private down(): void {
    const items = this.items;
    let k = 0;
    for (;;) {
      const l = 2 * k + 1;
      const r = l + 1;
      let least = k;
      if (l < items.length && this.before(items[l] as T, items[least] as T)) least = l;
      if (r < items.length && this.before(items[r] as T, items[least] as T)) least = r;
      if (least === k) return;
      [items[k], items[least]] = [items[least] as T, items[k] as T];
      k = least;
    }
  }
}
