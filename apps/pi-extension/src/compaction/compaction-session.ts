// One session's compaction state: the incremental facts, the durable-artifacts file (written before any
// compaction, awaited), the `compact` record of the compaction in flight (retracted if Pi then fails),
// the digest to re-inject once after it, and the run count the gate's cooldown reads.
import { stat } from "node:fs/promises";
import { type AppendTail, appendNextRecord, appendRecord, type CodeAssigner, type FoldIndexRecord, type FoldRetractRecord, HARNESS, SpanTexts, type Usage } from "@context-fold/seed-index-format";
import { HOOK_LOCK_WAIT_MS, isLockTimeout } from "../fold/fold-recorder.js";
import { buildDigest } from "@context-fold/summary-formatter";
import type { Session } from "@context-fold/ledger-reader";
import { lastEntryTime, type SeedScanCache } from "@context-fold/extractors";
import type { LedgerTracker } from "../ledger-tracker.js";
import { type ArtifactsDocument, artifactsPath, readArtifactsFile, serializeArtifacts, writeArtifactsFile } from "./artifacts-file.js";
import { CompactionFacts } from "./compaction-facts.js";
import type { CompactionOptions } from "./compaction-options.js";
import { computeHookCompaction, CutMismatchError, type HookCompaction, LeafMismatchError } from "./compute-compaction.js";
import type { NextStep } from "./next-step.js";

/** Where this session's compaction outputs go. */
export interface CompactionTarget {
  readonly sessionId: string;
  readonly seedIndex: string;
  readonly cwd?: string | undefined;
  readonly ledger: LedgerTracker;
  /** The session's shared seed scans (the fold target's), so the compaction's accumulator never scans a block again. */
  readonly scans?: SeedScanCache | undefined;
}

/** The fold state's seq counter and code assigner, shared so fold and compact records never collide. */
export interface SeqSource {
  readonly nextSeq: number;
  readonly codes: CodeAssigner;
  /** Take a record's seq as used (its spans are not folds: compacted blocks leave the context anyway). */
  claim(record: FoldIndexRecord): void;
  /** The seed index's tail as this session's last append left it, shared with the fold side. */
  readonly tail?: AppendTail | undefined;
}

/** A compaction we prepared and Pi has not confirmed yet. */
export interface InFlight {
  readonly seq: number;
  /** A `compact` record was appended for it (so a failure must retract it). */
  readonly recorded: boolean;
  /** Our summary was handed to Pi (false: Pi's own LLM compaction runs). */
  readonly ours: boolean;
  readonly next: NextStep | undefined;
}

/** What to re-inject after a compaction. */
export interface Reinjection {
  readonly digest: string;
  readonly digestTokens: number;
  readonly next: NextStep | undefined;
}

/** Size of a regular file, or -1 (missing, or not a file). */
async function sizeOf(file: string): Promise<number> {
  try {
    const info = await stat(file);
    return info.isFile() ? info.size : -1;
  } catch {
    return -1;
  }
}

/** Same file, same bytes read, same leaf: the session a draft was computed for. */
function draftKey(session: Session): string {
  return `${session.path}\u0000${String(session.byteLength)}\u0000${session.leafId ?? ""}`;
}

/** A draft with the seq and usage of the compaction actually running. */
function withIdentity(computed: HookCompaction, seq: number, usage: Usage | undefined): HookCompaction {
  const { usage: _drop, ...record } = computed.record;
  return {
    ...computed,
    record: usage === undefined ? { ...record, seq } : { ...record, seq, usage },
    details: { ...computed.details, seq },
  };
}

export class CompactionSession {
  readonly target: CompactionTarget;
  readonly options: CompactionOptions;
  readonly facts: CompactionFacts;
  readonly artifactsFile: string;
  readonly #seq: SeqSource;
  #writing: Promise<void> = Promise.resolve();
  /** What the last successful write put on disk (a compaction right after a run rewrites nothing), and the document it was. */
  #written: { text: string; bytes: number; doc: ArtifactsDocument } | undefined;
  /** `lastIndex` of the facts in the last artifacts written (-1: none). */
  #persistedIndex = -1;
  #inFlight: InFlight | undefined;
  /** `compact` records whose append found the seed index locked past HOOK_LOCK_WAIT_MS: appended at the next hook. */
  #deferred: FoldIndexRecord[] = [];
  #deferTold = false;
  #notice: string | undefined;
  /** `at` of the in-flight `compact` record: the retraction's time when the session cannot be read. */
  #recordAt: string | undefined;
  #runsSinceCompaction: number | undefined;
  #lastNext: NextStep | undefined;
  #compactions = 0;
  #retractions = 0;
  /** The compaction computed ahead (between runs or turns) for the session as it was then. */
  #draft: { key: string; computed: HookCompaction } | undefined;
  #draftHits = 0;
  readonly #spanTexts = new SpanTexts();

  constructor(target: CompactionTarget, seq: SeqSource, options: CompactionOptions) {
    this.target = target;
    this.options = options;
    this.#seq = seq;
    this.facts = new CompactionFacts(target.cwd, seq.codes, target.scans);
    this.artifactsFile = artifactsPath(target.seedIndex);
  }

  get runsSinceCompaction(): number | undefined {
    return this.#runsSinceCompaction;
  }
  get inFlight(): InFlight | undefined {
    return this.#inFlight;
  }
  get compactions(): number {
    return this.#compactions;
  }
  get retractions(): number {
    return this.#retractions;
  }

  /** Compactions whose work had been done ahead of the hook. */
  get draftHits(): number {
    return this.#draftHits;
  }

  /**
   * At a turn's end near a compaction: take what the hook builds from that depends only on the facts
   * (`CompactionFacts.prepare`, a few ms at most, nothing when nothing was fed since); the hook then
   * plans the cut and renders. The whole compaction is drafted between runs (`prepareAhead`).
   */
  async prepareParts(): Promise<void> {
    const session = await this.sync();
    if (session !== undefined) this.facts.prepare(session, this.options.summaryBudget);
  }

  /**
   * Near a compaction: compute it now, between turns, for the session as it is, so the hook only
   * writes (when nothing was appended since, it reuses this work with its own seq and usage).
   */
  async prepareAhead(): Promise<void> {
    const session = await this.sync();
    if (session === undefined) return;
    this.facts.prepare(session, this.options.summaryBudget);
    const key = draftKey(session);
    if (this.#draft?.key === key) return;
    try {
      this.#draft = { key, computed: this.#compute(session, this.#seq.nextSeq, undefined) };
    } catch {
      this.#draft = undefined; // nothing to compact yet; the hook computes (and reports) for itself
    }
  }

  #compute(session: Session, seq: number, usage: Usage | undefined): HookCompaction {
    return computeHookCompaction({
      session,
      facts: this.facts,
      sessionId: this.target.sessionId,
      seq,
      codes: this.#seq.codes,
      usage,
      summaryBudget: this.options.summaryBudget,
      digestBudget: this.options.digestBudget,
    });
  }

  /** An agent run ended: count it for the cooldown. */
  noteRunEnded(): void {
    if (this.#runsSinceCompaction !== undefined) this.#runsSinceCompaction += 1;
  }

  /** Replace the artifacts file; writes are serialized, so the newest always lands last. */
  #write(doc: ArtifactsDocument): Promise<void> {
    const next = this.#writing
      .catch(() => undefined)
      .then(async () => {
        const text = serializeArtifacts(doc);
        // Already durable on disk (written and fsynced, and the file is still there at that size).
        if (this.#written?.text === text && (await sizeOf(this.artifactsFile)) === this.#written.bytes) return;
        this.#written = undefined;
        await writeArtifactsFile(this.artifactsFile, doc, text);
        this.#written = { text, bytes: Buffer.byteLength(text, "utf8"), doc };
        this.#persistedIndex = doc.lastIndex;
      });
    this.#writing = next;
    return next;
  }

  /**
   * Between runs: read the new part of the session and feed everything settled (before the last user
   * message). With `persist` (the default), the artifacts file is written too when the facts grew since
   * it was last written; the gate persists only near a compaction (see `persist`). Returns the session
   * as read.
   */
  async sync(persist = true): Promise<Session | undefined> {
    const session = await this.target.ledger.current();
    if (session === undefined) return undefined;
    this.facts.feedSettled(session);
    if (persist) await this.persist(session);
    return session;
  }

  /**
   * Write the artifacts file when the facts grew since the last write. Near a compaction the gate calls
   * it between runs, so the hook (which Pi waits for) finds them durable and rewrites nothing; far from
   * one nothing reads the file, and writing it (temp file, fsync, rename) on every run would cost each
   * turn for nothing.
   */
  async persist(session: Session): Promise<void> {
    if (this.facts.lastIndex === this.#persistedIndex) return;
    const at = lastEntryTime(session) ?? new Date(0).toISOString();
    await this.#write({ v: 1, session: this.target.sessionId, at, lastIndex: this.facts.lastIndex, artifacts: this.facts.accumulator.artifacts() });
  }

  /**
   * The compaction Pi is about to run: compute ours, write the artifacts to disk (awaited: the digest
   * after compaction is read back from that file), append the `compact` record. With
   * `overrideDefaultCompaction` off the record and artifacts are still written, and Pi summarizes.
   */
  async prepare(usage: Usage | undefined, branchIds?: ReadonlySet<string>, leafId?: string | null): Promise<HookCompaction | undefined> {
    const session = await this.target.ledger.current();
    if (session === undefined) return undefined;
    // The file's leaf is its last line; after a /tree move without new entries Pi's leaf is elsewhere.
    if (leafId !== undefined && session.leafId !== leafId) throw new LeafMismatchError(session.path, session.leafId, leafId);
    const seq = this.#seq.nextSeq;
    const draft = this.#draft;
    this.#draft = undefined;
    let computed: HookCompaction;
    if (draft !== undefined && draft.key === draftKey(session)) {
      computed = withIdentity(draft.computed, seq, usage);
      this.#draftHits += 1;
    } else computed = this.#compute(session, seq, usage);
    // Our cut must name an entry on Pi's branch, or Pi would keep the wrong tail: refuse before writing.
    if (branchIds !== undefined && !branchIds.has(computed.result.firstKeptEntryId)) throw new CutMismatchError(session.path, computed.result.firstKeptEntryId);
    await this.#write(computed.artifacts);
    await this.flushDeferred();
    this.#inFlight = { seq, recorded: false, ours: this.options.overrideDefaultCompaction, next: computed.next };
    // The seq is assigned under the seed index's append lock from the file's tail (at least our own next
    // one), and the record, the details and the in-flight state all carry that seq.
    const base = computed;
    try {
      let stamped = base;
      await appendNextRecord(this.target.seedIndex, (tailSeq) => (stamped = withIdentity(base, tailSeq, usage)).record, { minSeq: seq, lockTimeoutMs: HOOK_LOCK_WAIT_MS, ...this.#tail() });
      computed = stamped;
    } catch (error) {
      if (!isLockTimeout(error)) throw error;
      // Never hold Pi's compaction for the lock: the record is appended at the next hook (its seq then
      // assigned under the lock); until then it has no seq in the file, so a failure drops it instead.
      this.#deferred.push(computed.record);
      this.#deferNotice();
      this.#recordAt = computed.record.at;
      return computed;
    }
    this.#recordAt = computed.record.at;
    this.#seq.claim(computed.record);
    this.#inFlight = { ...this.#inFlight, seq: computed.record.seq, recorded: true };
    return computed;
  }

  /**
   * The shared tail, as `appendNextRecord` options (none when the seq source keeps none), and the span
   * texts of the records appended so far: each `compact` record lists every span of the lineage, most of
   * them in the compaction before, so only the spans fed since are checked and serialized.
   */
  #tail(): { tail?: AppendTail; spanTexts: SpanTexts } {
    const tail = this.#seq.tail;
    return tail === undefined ? { spanTexts: this.#spanTexts } : { tail, spanTexts: this.#spanTexts };
  }

  #deferNotice(): void {
    if (this.#deferTold) return;
    this.#deferTold = true;
    this.#notice = "context-fold: another writer held the seed index's lock; the compaction record is appended at the next hook (said once).";
  }

  /** A message for the user (e.g. a deferred record), returned once. */
  takeNotice(): string | undefined {
    const notice = this.#notice;
    this.#notice = undefined;
    return notice;
  }

  /** Appends deferred `compact` records (each with a seq assigned under the lock) while the lock comes within HOOK_LOCK_WAIT_MS. */
  async flushDeferred(): Promise<void> {
    while (this.#deferred.length > 0) {
      const record = this.#deferred[0] as FoldIndexRecord;
      let appended: FoldIndexRecord;
      try {
        appended = await appendNextRecord(this.target.seedIndex, (tailSeq) => ({ ...record, seq: tailSeq }), { minSeq: this.#seq.nextSeq, lockTimeoutMs: HOOK_LOCK_WAIT_MS, ...this.#tail() });
      } catch (error) {
        if (isLockTimeout(error)) return;
        throw error;
      }
      this.#deferred.shift();
      this.#seq.claim(appended);
    }
  }

  /** Pi's compaction went through: the digest (read back from disk) and next step, once. */
  async completed(): Promise<Reinjection | undefined> {
    // A record deferred by prepare goes in now, if the lock is free (else at the next hook).
    await this.flushDeferred().catch(() => undefined);
    const flight = this.#inFlight;
    this.#inFlight = undefined;
    this.#compactions += 1;
    this.#runsSinceCompaction = 0;
    this.#lastNext = flight?.next;
    // Never a digest from stale or empty artifacts: wait for the last write, then take what it put on
    // disk (the file still at that size: the hook's write, which a compaction never starts without), or
    // read the file (a write failed, or the file changed or went since).
    await this.#writing.catch(() => undefined);
    let doc = await this.#onDisk();
    if (doc === undefined) {
      // Pi compacted without our hook having run (e.g. it failed): extract now, write, then digest.
      await this.sync();
      await this.#writing;
      doc = await readArtifactsFile(this.artifactsFile);
    }
    if (doc === undefined) return undefined;
    const digest = buildDigest(doc.artifacts, { budget: this.options.digestBudget });
    return { digest: digest.text, digestTokens: digest.stats.estimatedTokens, next: flight?.next };
  }

  /** The artifacts as the last write put them on disk while the file is still that size, else read from the file. */
  async #onDisk(): Promise<ArtifactsDocument | undefined> {
    const written = this.#written;
    if (written !== undefined && (await sizeOf(this.artifactsFile)) === written.bytes) return written.doc;
    return readArtifactsFile(this.artifactsFile);
  }

  /** Pi's compaction failed or was cancelled after we prepared it: retract our record. */
  async failed(reason: string): Promise<FoldRetractRecord | undefined> {
    const flight = this.#inFlight;
    this.#inFlight = undefined;
    if (flight !== undefined && !flight.recorded && this.#deferred.length > 0) {
      // Its record was deferred and never written: drop it instead of retracting.
      this.#deferred.pop();
      return undefined;
    }
    if (flight === undefined || !flight.recorded) return undefined;
    // Never let reading the session stop the retraction (the session file may be what failed): the
    // record stays voidable, timed by the record itself.
    const session = await this.target.ledger.current().catch(() => undefined);
    const at = (session === undefined ? undefined : lastEntryTime(session)) ?? this.#recordAt ?? new Date(0).toISOString();
    const retract: FoldRetractRecord = { v: 2, kind: "fold-retract", seq: flight.seq, at, harness: HARNESS, session: this.target.sessionId, reason };
    await appendRecord(this.target.seedIndex, retract);
    this.#retractions += 1;
    return retract;
  }

  /** Forget a prepared compaction whose record could not be written (nothing to retract). */
  abandon(): InFlight | undefined {
    const flight = this.#inFlight;
    this.#inFlight = undefined;
    return flight;
  }

  get lastNextStep(): NextStep | undefined {
    return this.#lastNext;
  }
}
