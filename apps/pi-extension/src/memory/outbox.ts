// The retain outbox: every item bound for a memory bank is written here first (beside the seed index),
// then sent in order. States: `pending` (not sent), `sending` (sent, answer not yet seen — after a lost
// answer or a crash the bank is asked, GET documents/{id}, before anything is resent). Sent items
// leave the queue and their keys are kept, so neither a later turn nor a restart enqueues them again.
// Capped: past `max` unsent items the oldest are dropped, and the count is kept for a notice.
import { readFile } from "node:fs/promises";
import type { RetainItem } from "@context-fold/memory-gardener-client";
import { writeFileAtomically } from "@context-fold/summary-formatter";

/** The outbox file beside the seed index. */
export const OUTBOX_FILE = "memory-outbox.json";

export type OutboxState = "pending" | "sending";

export interface OutboxItem {
  readonly bankId: string;
  /** The item's document id (required: it is how a lost answer is resolved). */
  readonly documentId: string;
  readonly item: RetainItem;
  readonly state: OutboxState;
}

interface OutboxDocument {
  readonly v: 1;
  readonly items: readonly OutboxItem[];
  /** Keys (`<bank> <documentId>`) sent, in the order they were acknowledged. */
  readonly sent: readonly string[];
  /** Items dropped by the cap since the file was created. */
  readonly dropped: number;
}

/**
 * The one place the outbox reaches the disk: replaced atomically (temp file, fsync, rename). Kept as
 * a single function so the durable writer (#22/#24) can take its place.
 */
export async function writeOutboxFile(file: string, text: string): Promise<void> {
  await writeFileAtomically(file, text);
}

export function outboxKey(bankId: string, documentId: string): string {
  return `${bankId} ${documentId}`;
}

function isItem(value: unknown): value is OutboxItem {
  const v = value as Partial<OutboxItem> | null;
  return (
    typeof v === "object" && v !== null && typeof v.bankId === "string" && typeof v.documentId === "string" &&
    (v.state === "pending" || v.state === "sending") && typeof v.item === "object" && v.item !== null && typeof v.item.content === "string"
  );
}

export class Outbox {
  /** undefined: an in-memory session (nothing on disk). */
  readonly file: string | undefined;
  readonly max: number;
  #items: OutboxItem[];
  readonly #sent: Set<string>;
  readonly #sentOrder: string[];
  #dropped: number;
  #writing: Promise<void> = Promise.resolve();

  private constructor(file: string | undefined, max: number, doc: OutboxDocument) {
    this.file = file;
    this.max = max;
    this.#items = [...doc.items];
    this.#sentOrder = [...doc.sent];
    this.#sent = new Set(doc.sent);
    this.#dropped = doc.dropped;
  }

  /** Open (or start) the outbox at `file`. A damaged file starts empty: at worst items go again (same document ids). */
  static async open(file: string | undefined, max: number): Promise<Outbox> {
    let doc: OutboxDocument = { v: 1, items: [], sent: [], dropped: 0 };
    if (file !== undefined) {
      try {
        const value = JSON.parse(await readFile(file, "utf8")) as Partial<OutboxDocument>;
        if (value.v === 1) {
          doc = {
            v: 1,
            items: Array.isArray(value.items) ? value.items.filter(isItem) : [],
            sent: Array.isArray(value.sent) ? value.sent.filter((k): k is string => typeof k === "string") : [],
            dropped: typeof value.dropped === "number" ? value.dropped : 0,
          };
        }
      } catch {
        // missing (first use) or unreadable: start empty
      }
    }
    return new Outbox(file, Math.max(1, max), doc);
  }

  /** Sent or waiting: nothing to enqueue again. */
  has(bankId: string, documentId: string): boolean {
    const key = outboxKey(bankId, documentId);
    return this.#sent.has(key) || this.#items.some((i) => outboxKey(i.bankId, i.documentId) === key);
  }

  get items(): readonly OutboxItem[] {
    return this.#items;
  }
  get sentCount(): number {
    return this.#sentOrder.length;
  }
  get dropped(): number {
    return this.#dropped;
  }

  /** Add new items (known ones skipped); returns how many were added and how many old ones the cap dropped. */
  enqueue(entries: readonly { bankId: string; documentId: string; item: RetainItem }[]): { added: number; dropped: number } {
    let added = 0;
    for (const entry of entries) {
      if (this.has(entry.bankId, entry.documentId)) continue;
      this.#items.push({ ...entry, state: "pending" });
      added += 1;
    }
    let dropped = 0;
    while (this.#items.length > this.max) {
      // The oldest pending item goes; one already sent (awaiting its answer) stays to be resolved.
      const at = this.#items.findIndex((i) => i.state === "pending");
      if (at < 0) break;
      this.#items.splice(at, 1);
      dropped += 1;
    }
    this.#dropped += dropped;
    return { added, dropped };
  }

  setState(keys: ReadonlySet<string>, state: OutboxState): void {
    this.#items = this.#items.map((i) => (keys.has(outboxKey(i.bankId, i.documentId)) ? { ...i, state } : i));
  }

  markSent(keys: ReadonlySet<string>): void {
    this.#items = this.#items.filter((i) => !keys.has(outboxKey(i.bankId, i.documentId)));
    for (const key of keys) {
      if (this.#sent.has(key)) continue;
      this.#sent.add(key);
      this.#sentOrder.push(key);
    }
  }

  /** Remove items without sending them (the bank refused them for good). */
  discard(keys: ReadonlySet<string>): void {
    this.#items = this.#items.filter((i) => !keys.has(outboxKey(i.bankId, i.documentId)));
  }

  /** Write the current state; writes are serialized, each one complete. */
  persist(): Promise<void> {
    const file = this.file;
    if (file === undefined) return Promise.resolve();
    const doc: OutboxDocument = { v: 1, items: this.#items, sent: this.#sentOrder, dropped: this.#dropped };
    const text = `${JSON.stringify(doc)}\n`;
    const next = this.#writing.then(
      () => writeOutboxFile(file, text),
      () => writeOutboxFile(file, text),
    );
    this.#writing = next;
    return next;
  }
}
