// The local bank's state: banks, live memories and the archive of invalidated ones, in the real
// server's list order (mentioned_at DESC NULLS LAST, then newest created first). Every change is
// journaled (when a data directory is given) before the caller answers.
import { randomUUID } from "node:crypto";
import type { FileSystem } from "@context-fold/durable-fs";
import { Journal, type JournalRecord, type StorageDamage } from "./journal.js";
import type { StoredBank, StoredFactType, StoredMemory } from "./records.js";
import { SnapshotFailedError } from "./errors.js";

export interface RetainInput {
  readonly content: string;
  /** ISO string (normalized), null = "unset" (no date). */
  readonly timestamp: string | null;
  readonly context: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly documentId: string | null;
  readonly entities: readonly string[];
  readonly tags: readonly string[];
}

export interface ListFilter {
  readonly type: StoredFactType | null;
  readonly q: string | null;
  readonly state: "valid" | "invalidated";
  readonly tags: readonly string[] | null;
  readonly tagsMatch: TagsMatch;
  readonly documentId: string | null;
}

export type TagsMatch = "any" | "all" | "any_strict" | "all_strict" | "exact";

export interface PatchInput {
  readonly text?: string;
  readonly context?: string;
  readonly occurredStart?: string;
  readonly occurredEnd?: string;
  readonly factType?: "world" | "experience";
  readonly entities?: readonly string[];
  readonly state?: "valid" | "invalidated";
  readonly reason?: string;
}

export type PatchOutcome =
  | { readonly kind: "ok"; readonly memory: StoredMemory }
  | { readonly kind: "not-found" }
  | { readonly kind: "observation" }
  | { readonly kind: "invalidated-edit" };

interface BankState {
  bank: StoredBank;
  live: Map<string, StoredMemory>;
  archive: Map<string, StoredMemory>;
  liveSorted: StoredMemory[] | null;
  archiveSorted: StoredMemory[] | null;
  /** Valid memories by document_id, so a retain under a known document replaces it without a scan. */
  byDocument: Map<string, Set<string>>;
}

/** Why a memory left the valid set when its document was retained again (Hindsight's upsert). */
export const REPLACED_REASON = "replaced: retained again under the same document_id";

const SNAPSHOT_EVERY = 50_000;

function compareListOrder(a: StoredMemory, b: StoredMemory): number {
  if (a.mentionedAt !== b.mentionedAt) {
    if (a.mentionedAt === null) return 1;
    if (b.mentionedAt === null) return -1;
    return a.mentionedAt < b.mentionedAt ? 1 : -1;
  }
  return b.seq - a.seq;
}

/** Tag filter with the real server's five modes ("any"/"all" let untagged memories through). */
export function tagsMatch(memoryTags: readonly string[], wanted: readonly string[] | null, mode: TagsMatch): boolean {
  if (mode === "exact") {
    const want = new Set(wanted ?? []);
    const have = new Set(memoryTags);
    if (want.size === 0) return have.size === 0;
    return have.size === want.size && [...want].every((t) => have.has(t));
  }
  if (wanted === null || wanted.length === 0) return true;
  if (memoryTags.length === 0) return mode === "any" || mode === "all";
  // Tag lists are short: a linear scan beats building a Set per memory on every recall.
  return mode === "any" || mode === "any_strict" ? wanted.some((t) => memoryTags.includes(t)) : wanted.every((t) => memoryTags.includes(t));
}

export class BankStore {
  private readonly banks = new Map<string, BankState>();
  private readonly journal: Journal | null;
  private seq = 0;
  /** Bytes of a torn journal tail dropped when the store was opened. */
  readonly tornBytesDropped: number;
  /** Damage the start found in the journal or snapshot (every intact record was kept). */
  readonly damage: readonly StorageDamage[];
  /** Other things the start has to say (old formats loaded, copies of damaged files kept). */
  readonly notices: readonly string[];
  /** The last snapshot that failed (the journal still holds everything); null after a good one. */
  private snapshotError: unknown = null;

  private readonly snapshotEvery: number;

  /** `snapshotEvery`: journal records between snapshots (default 50,000; tests make it small). */
  constructor(dataDir: string | undefined, fs?: FileSystem, snapshotEvery = SNAPSHOT_EVERY) {
    this.snapshotEvery = snapshotEvery;
    this.journal = dataDir === undefined ? null : new Journal(dataDir, fs);
    if (this.journal === null) {
      this.tornBytesDropped = 0;
      this.damage = [];
      this.notices = [];
      return;
    }
    const { records, tornBytes, damage, notices, rewrite } = this.journal.load();
    this.tornBytesDropped = tornBytes;
    this.damage = damage;
    this.notices = notices;
    for (const record of records) this.apply(record);
    if (rewrite) {
      // Damaged copies are kept; a snapshot of what was read intact means the damage is not met again.
      try {
        this.journal.snapshot(this.allRecords());
      } catch (error) {
        this.snapshotError = error;
      }
    }
  }

  private apply(record: JournalRecord): void {
    if (record.op === "bank") {
      const state = this.banks.get(record.bank.bankId);
      if (state === undefined) this.banks.set(record.bank.bankId, { bank: record.bank, live: new Map(), archive: new Map(), liveSorted: null, archiveSorted: null, byDocument: new Map() });
      else state.bank = record.bank;
      return;
    }
    const memory = record.memory;
    this.seq = Math.max(this.seq, memory.seq + 1);
    const state = this.ensureBankState(memory.bankId, memory.createdAt, false);
    const before = state.live.get(memory.id) ?? state.archive.get(memory.id);
    if (before?.documentId != null) state.byDocument.get(before.documentId)?.delete(memory.id);
    state.live.delete(memory.id);
    state.archive.delete(memory.id);
    (memory.state === "valid" ? state.live : state.archive).set(memory.id, memory);
    if (memory.state === "valid" && memory.documentId !== null) {
      let ids = state.byDocument.get(memory.documentId);
      if (ids === undefined) state.byDocument.set(memory.documentId, (ids = new Set()));
      ids.add(memory.id);
    }
    state.liveSorted = null;
    state.archiveSorted = null;
  }

  /** Journal first (throws, changing nothing, when the write fails), then apply: only stored changes are answered. */
  private commit(records: JournalRecord[]): void {
    this.journal?.append(records);
    for (const record of records) this.apply(record);
    if (this.journal !== null && this.journal.journalLines >= this.snapshotEvery) {
      // The records are already durable in the journal: a snapshot that fails (a full disk) is retried later.
      try {
        this.journal.snapshot(this.allRecords());
        this.snapshotError = null;
      } catch (error) {
        this.snapshotError = error;
      }
    }
  }

  private *allRecords(): Iterable<JournalRecord> {
    for (const state of this.banks.values()) {
      yield { op: "bank", bank: state.bank };
      for (const memory of state.live.values()) yield { op: "memory", memory };
      for (const memory of state.archive.values()) yield { op: "memory", memory };
    }
  }

  private ensureBankState(bankId: string, now: string, journal: boolean): BankState {
    const existing = this.banks.get(bankId);
    if (existing !== undefined) return existing;
    const bank: StoredBank = { bankId, name: bankId, mission: "", disposition: { skepticism: 3, literalism: 3, empathy: 3 }, createdAt: now, updatedAt: now };
    if (journal) this.commit([{ op: "bank", bank }]);
    else this.banks.set(bankId, { bank, live: new Map(), archive: new Map(), liveSorted: null, archiveSorted: null, byDocument: new Map() });
    return this.banks.get(bankId) as BankState;
  }

  putBank(bankId: string, edit: Partial<Pick<StoredBank, "name" | "mission" | "disposition">>, now: string): StoredBank {
    const current = this.banks.get(bankId)?.bank;
    const bank: StoredBank = {
      bankId,
      name: edit.name ?? current?.name ?? bankId,
      mission: edit.mission ?? current?.mission ?? "",
      disposition: edit.disposition ?? current?.disposition ?? { skepticism: 3, literalism: 3, empathy: 3 },
      createdAt: current?.createdAt ?? now,
      updatedAt: now,
    };
    this.commit([{ op: "bank", bank }]);
    return bank;
  }

  bank(bankId: string): StoredBank | undefined {
    return this.banks.get(bankId)?.bank;
  }

  listBanks(): { bank: StoredBank; factCount: number; lastWriteAt: string | null }[] {
    return [...this.banks.values()]
      .map((state) => {
        let last: string | null = null;
        for (const m of state.live.values()) if (last === null || m.createdAt > last) last = m.createdAt;
        return { bank: state.bank, factCount: state.live.size, lastWriteAt: last };
      })
      .sort((a, b) => (a.bank.bankId < b.bank.bankId ? -1 : a.bank.bankId > b.bank.bankId ? 1 : 0));
  }

  retain(bankId: string, items: readonly RetainInput[], now: string): StoredMemory[] {
    const records: JournalRecord[] = [];
    if (!this.banks.has(bankId)) {
      records.push({ op: "bank", bank: { bankId, name: bankId, mission: "", disposition: { skepticism: 3, literalism: 3, empathy: 3 }, createdAt: now, updatedAt: now } });
    }
    // Hindsight's upsert: a document retained again replaces the one stored (its memories leave the
    // valid set, kept in the archive with the reason), so a re-sent item never counts twice.
    const state = this.banks.get(bankId);
    const replaced = new Set<string>();
    for (const item of items) {
      if (item.documentId === null || state === undefined) continue;
      for (const id of state.byDocument.get(item.documentId) ?? []) {
        const old = state.live.get(id);
        if (old === undefined || replaced.has(id)) continue;
        replaced.add(id);
        records.push({ op: "memory", memory: { ...old, state: "invalidated", invalidationReason: REPLACED_REASON, invalidatedAt: now } });
      }
    }
    const made: StoredMemory[] = [];
    for (const item of items) {
      const declared = item.metadata["fact_type"];
      const factType: StoredFactType = declared === "experience" || declared === "observation" ? declared : "world";
      const memory: StoredMemory = {
        id: randomUUID(),
        bankId,
        seq: this.seq + made.length,
        createdAt: now,
        text: item.content,
        context: item.context,
        factType,
        documentId: item.documentId,
        mentionedAt: item.timestamp,
        occurredStart: item.timestamp,
        occurredEnd: item.timestamp,
        entities: item.entities,
        tags: item.tags,
        metadata: item.metadata,
        proofCount: 1,
        state: "valid",
        invalidationReason: null,
        invalidatedAt: null,
        editedAt: null,
      };
      made.push(memory);
      records.push({ op: "memory", memory });
    }
    this.commit(records);
    return made;
  }

  private sorted(state: BankState, which: "valid" | "invalidated"): StoredMemory[] {
    if (which === "valid") {
      state.liveSorted ??= [...state.live.values()].sort(compareListOrder);
      return state.liveSorted;
    }
    state.archiveSorted ??= [...state.archive.values()].sort(compareListOrder);
    return state.archiveSorted;
  }

  /** Filtered rows in list order (valid rows, or the archive with state=invalidated). */
  select(bankId: string, filter: ListFilter): StoredMemory[] {
    const state = this.banks.get(bankId);
    if (state === undefined) return [];
    const q = filter.q === null || filter.q === "" ? null : filter.q.toLowerCase();
    const rows = this.sorted(state, filter.state);
    // Unfiltered walks (the gardener's full listing) page straight off the cached order.
    if (filter.type === null && filter.documentId === null && q === null && (filter.tags === null || filter.tags.length === 0) && filter.tagsMatch !== "exact") return rows;
    return rows.filter(
      (m) =>
        (filter.type === null || m.factType === filter.type) &&
        (filter.documentId === null || m.documentId === filter.documentId) &&
        (q === null || m.text.toLowerCase().includes(q) || (m.context !== null && m.context.toLowerCase().includes(q))) &&
        tagsMatch(m.tags, filter.tags, filter.tagsMatch),
    );
  }

  get(bankId: string, id: string): StoredMemory | undefined {
    const state = this.banks.get(bankId);
    return state?.live.get(id) ?? state?.archive.get(id);
  }

  /** Apply a curation; with `noop` the answer is computed but nothing is stored (fault injection). */
  patch(bankId: string, id: string, input: PatchInput, now: string, noop: boolean): PatchOutcome {
    const current = this.get(bankId, id);
    if (current === undefined) return { kind: "not-found" };
    if (current.factType === "observation") return { kind: "observation" };
    const edits = input.text !== undefined || input.context !== undefined || input.occurredStart !== undefined || input.occurredEnd !== undefined || input.factType !== undefined || input.entities !== undefined;
    const reverting = input.state === "valid";
    if (current.state === "invalidated" && edits && !reverting) return { kind: "invalidated-edit" };
    const blank = (v: string | undefined, old: string | null): string | null => (v === undefined ? old : v === "" ? null : v);
    let next: StoredMemory = {
      ...current,
      text: input.text ?? current.text,
      context: blank(input.context, current.context),
      occurredStart: blank(input.occurredStart, current.occurredStart),
      occurredEnd: blank(input.occurredEnd, current.occurredEnd),
      factType: input.factType ?? current.factType,
      entities: input.entities ?? current.entities,
      editedAt: edits ? now : current.editedAt,
    };
    if (input.state === "invalidated" && current.state !== "invalidated") {
      next = { ...next, state: "invalidated", invalidationReason: input.reason ?? null, invalidatedAt: now };
    } else if (input.state === "valid" && current.state !== "valid") {
      next = { ...next, state: "valid", invalidationReason: null, invalidatedAt: null };
    }
    if (!noop) this.commit([{ op: "memory", memory: next }]);
    return { kind: "ok", memory: next };
  }

  /** Flush the full state into a snapshot (so a restart replays little) and release the journal. */
  close(): void {
    if (this.journal === null) return;
    try {
      if (this.journal.journalLines > 0 || this.snapshotError !== null) this.journal.snapshot(this.allRecords());
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new SnapshotFailedError(`could not write the snapshot on close (${why}); the journal still holds every acknowledged change and is replayed on the next start`, error);
    } finally {
      this.journal.close();
    }
  }
}
