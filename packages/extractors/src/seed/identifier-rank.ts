// The record's identifiers: the best IDENTIFIER_CAP tokens of a seed accumulator by `tokenRank`, at most
// PER_BLOCK_QUOTA from one home block while other blocks have candidates. A live session asks for them
// at every turn's end, over a table that only grows, so the ranking keeps the tokens that can still be
// chosen between calls instead of ranking every token again (see `IdentifierRanker`).
import { STAT_DF, STAT_FIRST, STAT_LARGE, STAT_LAST, STAT_STRIDE, type TokenOrder, type TokenTable } from "./token-table.js";

/** At most this many identifiers per record (the contract's cap). */
export const IDENTIFIER_CAP = 64;
/** At most this many identifiers per source block while other blocks still have candidates. */
const PER_BLOCK_QUOTA = 8;
/**
 * A kept candidate set holds the tokens of the leading keys that give at least this many identifiers
 * (quota applied), so it stays enough for IDENTIFIER_CAP while later blocks make some of them rank lower.
 * Every call meets each candidate (and the tokens of its homes' quota: ~20 per identifier on the bench's
 * sessions), so the set is kept small: twice the cap took as many full rankings as four times it on the
 * bench's ≈4 MB sessions (3 in 240 and 208 turns) and cut a turn's choice from ~0.34 to ~0.22 ms (median,
 * 2026-12-03). Any size gives the same identifiers (see `IdentifierRanker`).
 */
const CANDIDATE_SLACK = 2 * IDENTIFIER_CAP;
/** Leading key of a token never in a large output: after every token that was. */
const NOT_LARGE = 1 << 30;

type Ranked<T> = (a: T, b: T) => number;

/** The best `cap` items by `better` (negative = a first), in one pass: O(n·cap) worst, O(n) typical. */
export function topK<T>(items: Iterable<T>, cap: number, better: Ranked<T>): T[] {
  const best: T[] = [];
  for (const item of items) {
    if (best.length >= cap) {
      const worst = best[best.length - 1];
      if (worst === undefined || better(item, worst) >= 0) continue;
    }
    let at = best.length;
    while (at > 0) {
      const prev = best[at - 1];
      if (prev === undefined || better(item, prev) >= 0) break;
      at -= 1;
    }
    best.splice(at, 0, item);
    if (best.length > cap) best.pop();
  }
  return best;
}

/**
 * Puts token `id` among the best PER_BLOCK_QUOTA of its home `key` in a flat table (PER_BLOCK_QUOTA slots
 * per home, kept sorted by `better`; `filled` counts each home's slots): the worst falls off a full home.
 */
function keepInHome(slots: Int32Array, filled: Uint8Array, key: number, id: number, better: TokenOrder): void {
  const base = key * PER_BLOCK_QUOTA;
  let n = filled[key] ?? 0;
  if (n >= PER_BLOCK_QUOTA) {
    if (better(id, slots[base + PER_BLOCK_QUOTA - 1] ?? 0) >= 0) return;
    n = PER_BLOCK_QUOTA - 1; // the worst falls off
  }
  let at = n;
  while (at > 0) {
    const prev = slots[base + at - 1] ?? 0;
    if (better(id, prev) >= 0) break;
    slots[base + at] = prev;
    at -= 1;
  }
  slots[base + at] = id;
  filled[key] = n + 1;
}

/**
 * The best IDENTIFIER_CAP token ids with at most PER_BLOCK_QUOTA from one home block, so one output full
 * of hashes (a `find .git` listing) cannot take every slot; slots left over go to the best of the rest.
 * `primary` holds `rank`'s leading keys as integers (see `leadingKey`); homes are block ordinals below
 * `homes`.
 */
function spread(count: number, rank: TokenOrder, primary: Int32Array, home: Int32Array, homes: number): number[] {
  // Most comparisons are decided by the leading keys: one integer compare, `rank` only on a tie.
  const better: TokenOrder = (a, b) => {
    const d = (primary[a] ?? 0) - (primary[b] ?? 0);
    return d !== 0 ? d : rank(a, b);
  };
  // Each home's best, sorted, in one flat table (PER_BLOCK_QUOTA slots per home): no array per block.
  const slots = new Int32Array(homes * PER_BLOCK_QUOTA);
  const filled = new Uint8Array(homes);
  for (let id = 0; id < count; id++) {
    const key = home[id] ?? 0;
    keepInHome(slots, filled, key, id, better);
  }
  const pool: number[] = [];
  for (let key = 0; key < homes; key++) {
    const base = key * PER_BLOCK_QUOTA;
    const n = filled[key] ?? 0;
    for (let i = 0; i < n; i++) pool.push(slots[base + i] ?? 0);
  }
  const chosen = topK(pool, IDENTIFIER_CAP, better);
  if (chosen.length < IDENTIFIER_CAP) {
    const taken = new Set(chosen);
    const rest: number[] = [];
    for (let id = 0; id < count; id++) if (!taken.has(id)) rest.push(id);
    for (const id of topK(rest, IDENTIFIER_CAP - chosen.length, better)) chosen.push(id);
  }
  return chosen;
}

/**
 * `tokenRank`'s leading keys as one integer (large outputs first, then rarer parts first): a smaller
 * value ranks first, equal values are decided by the full order. A token's key never rises while tokens
 * are added (its rarity and the counts only grow) except when it is first seen in a large output.
 */
function leadingKey(large: number, rarity: number): number {
  return (large === 1 ? 0 : NOT_LARGE) + Math.min(rarity, NOT_LARGE - 1);
}

/** `buffer`'s values in a new Int32Array of `size` (zeros after them). */
function grownCopy(buffer: Int32Array, size: number): Int32Array {
  const grown = new Int32Array(size);
  grown.set(buffer);
  return grown;
}

/** Int32Array of at least `size`, `buffer` when it is large enough. */
function atLeast(buffer: Int32Array, size: number): Int32Array {
  return buffer.length >= size ? buffer : new Int32Array(Math.max(size, buffer.length * 2));
}

/**
 * How far a kept candidate set reaches in the order's two leading keys: the leading key (`leadingKey`),
 * then, at an equal one, length per block seen (higher first), as `length / df` without division.
 */
interface Bound {
  readonly primary: number;
  readonly length: number;
  readonly df: number;
}

/**
 * The tokens that can be chosen, kept between calls: every token within `bound` when the table had
 * `size` tokens and `flips` large flips. Neither key ever gets better for a token while tokens are added
 * (rarity and block counts only grow) except when it is first seen in a large output, so a token
 * outside stays outside unless it is newer or flipped to large since; a token inside may have fallen
 * past `bound` and is dropped when met.
 */
interface Candidates {
  readonly bound: Bound;
  readonly ids: readonly number[];
  readonly size: number;
  readonly flips: number;
}

/**
 * The identifiers of one accumulator's token table for one `favourRecent` mode, ranked afresh the first
 * time and after, among the tokens kept as candidates (`Candidates`) while they are enough.
 *
 * Why the candidates give the same identifiers: let B bound the order's two leading keys (`Bound`) and
 * every token within B be a candidate. Within one home, every token within B ranks before every token
 * past it (those keys lead the order), so the candidates' per-home best (quota applied) are exactly the
 * whole table's per-home best within B. When those number at least IDENTIFIER_CAP, the whole table's
 * pool holds IDENTIFIER_CAP members better than any token past B, so its best IDENTIFIER_CAP are the
 * candidates' best, and no slot is left over for the rest. Otherwise the ranking runs over every
 * token, as the first time.
 */
export class IdentifierRanker {
  #candidates: Candidates | undefined;
  /** Per token id, for the ids read in the last call: rarity and leading key. */
  #rarity: Int32Array = new Int32Array(0);
  #primary: Int32Array = new Int32Array(0);
  /** Per token id: the call that last read it (`#call`), so a token met twice is counted once. */
  #met: Int32Array = new Int32Array(0);
  /**
   * `#quotaPool`'s table: PER_BLOCK_QUOTA token ids per home, and how many each holds, kept between calls
   * (each home's best among the candidates of the last call) while `#poolValid`: a call makes again only
   * the homes a token entered, left or changed keys in (`#dirty`), since a home's best depends on nothing else.
   */
  #slots: Int32Array = new Int32Array(0);
  #filled: Uint8Array = new Uint8Array(0);
  /** The homes holding slots, each once (`#listed` marks them). */
  #homes: number[] = [];
  #listed: Uint8Array = new Uint8Array(0);
  /** Homes to make again this call, each once (`#dirty` marks them). */
  #dirtyHomes: number[] = [];
  #dirty: Uint8Array = new Uint8Array(0);
  /** The table holds the last call's candidates' per-home best (else every home is made again). */
  #poolValid = false;
  /** Per token id: the call that last kept it as a candidate, and its home and block count then (with `#rarity`, `#primary`: every key the order reads that can change). */
  #keptIn: Int32Array = new Int32Array(0);
  #keptHome: Int32Array = new Int32Array(0);
  #keptDf: Int32Array = new Int32Array(0);
  /** From 1: `#keptIn`'s zeros never read as the call before. */
  #call = 1;
  /** Calls in this process, and those that ranked every token (the first of each ranker, and each time its candidates were not enough): for tests. */
  static calls = 0;
  static rebuilds = 0;
  /** Homes whose best were made again by calls among candidates, and homes such calls held: for tests. */
  static homesMade = 0;
  static homesHeld = 0;

  constructor(
    private readonly tokens: TokenTable,
    private readonly recent: boolean,
  ) {}

  /** The identifiers' token ids (in no particular order): `homes` is one more than the highest block ordinal. */
  choose(homes: number): number[] {
    IdentifierRanker.calls += 1;
    const tokens = this.tokens;
    const count = tokens.size;
    tokens.countParts();
    if (this.#rarity.length < count) {
      // The keys last read are lost with the old arrays: every home is made again.
      this.#rarity = atLeast(this.#rarity, count);
      this.#primary = atLeast(this.#primary, count);
      this.#poolValid = false;
    }
    const held = this.#candidates;
    if (held !== undefined) {
      const kept = this.#among(held, count, homes);
      const pool = this.#quotaPool(kept);
      if (pool.length >= IDENTIFIER_CAP) {
        // Grown well past what it needs (new tokens within the bound), the set is bounded again among
        // its own members: every other token is past the old bound, so past the new one too.
        if (pool.length > 2 * CANDIDATE_SLACK) {
          this.#candidates = this.#bounded(kept, count);
          this.#poolValid = false;
        } else this.#candidates = { bound: held.bound, ids: kept, size: count, flips: tokens.largeFlips.length };
        return topK(pool, IDENTIFIER_CAP, this.#better());
      }
    }
    this.#poolValid = false;
    return this.#chooseAll(count, homes);
  }

  /** The candidates still at most their bound, with the tokens added or flipped to large since. */
  #among(held: Candidates, count: number, homes: number): number[] {
    this.#call += 1;
    if (this.#met.length < count) {
      const size = Math.max(count, this.#met.length * 2);
      this.#met = grownCopy(this.#met, size);
      this.#keptIn = grownCopy(this.#keptIn, size);
      this.#keptHome = grownCopy(this.#keptHome, size);
      this.#keptDf = grownCopy(this.#keptDf, size);
    }
    if (this.#filled.length < homes) {
      // A larger table: every home is made again in it.
      const size = Math.max(homes, this.#filled.length * 2);
      this.#filled = new Uint8Array(size);
      this.#slots = new Int32Array(size * PER_BLOCK_QUOTA);
      this.#listed = new Uint8Array(size);
      this.#dirty = new Uint8Array(size);
      this.#homes = [];
      this.#dirtyHomes = [];
      this.#poolValid = false;
    }
    const kept: number[] = [];
    for (const id of held.ids) this.#meet(id, held.bound, kept);
    for (let id = held.size; id < count; id++) this.#meet(id, held.bound, kept);
    const flips = this.tokens.largeFlips;
    for (let i = held.flips; i < flips.length; i++) this.#meet(flips[i] as number, held.bound, kept);
    return kept;
  }

  /**
   * Keep `id` when within `bound`, reading its keys afresh. A token kept last call that is dropped now,
   * moved to another home or whose keys changed, and a token kept anew, mark their homes to be made again.
   */
  #meet(id: number, bound: Bound, kept: number[]): void {
    const call = this.#call;
    if (this.#met[id] === call) return;
    this.#met[id] = call;
    const wasKept = this.#keptIn[id] === call - 1;
    const rarity = this.tokens.rarityOf(id);
    const stats = this.tokens.stats;
    const at = id * STAT_STRIDE;
    const primary = leadingKey(stats[at + STAT_LARGE] ?? 0, rarity);
    const df = stats[at + STAT_DF] ?? 0;
    if (primary > bound.primary || (primary === bound.primary && (this.tokens.length[id] ?? 0) * bound.df < bound.length * df)) {
      if (wasKept) this.#markDirty(this.#keptHome[id] ?? 0);
      return;
    }
    const home = stats[at + this.#homeOffset()] ?? 0;
    if (!wasKept) this.#markDirty(home);
    else if (this.#keptHome[id] !== home || this.#rarity[id] !== rarity || this.#primary[id] !== primary || this.#keptDf[id] !== df) {
      this.#markDirty(this.#keptHome[id] ?? 0);
      this.#markDirty(home);
    }
    this.#keptIn[id] = call;
    this.#keptHome[id] = home;
    this.#keptDf[id] = df;
    this.#rarity[id] = rarity;
    this.#primary[id] = primary;
    kept.push(id);
  }

  #markDirty(home: number): void {
    if (this.#dirty[home] === 1) return;
    this.#dirty[home] = 1;
    this.#dirtyHomes.push(home);
  }

  /** Every token ranked (the first call, or candidates no longer enough); the candidates chosen again. */
  #chooseAll(count: number, homes: number): number[] {
    IdentifierRanker.rebuilds += 1;
    const tokens = this.tokens;
    const stats = tokens.stats;
    const rarity = this.#rarity;
    const primary = this.#primary;
    for (let id = 0; id < count; id++) {
      rarity[id] = tokens.rarityOf(id);
      primary[id] = leadingKey(stats[id * STAT_STRIDE + STAT_LARGE] ?? 0, rarity[id] ?? 0);
    }
    const home = new Int32Array(count);
    const offset = this.#homeOffset();
    for (let id = 0; id < count; id++) home[id] = stats[id * STAT_STRIDE + offset] ?? 0;
    const chosen = spread(count, this.#rank(), primary, home, homes);
    const all: number[] = [];
    for (let id = 0; id < count; id++) all.push(id);
    this.#candidates = this.#bounded(all, count);
    return chosen;
  }

  /**
   * The candidates for the next call, of `ids` (every token past the bound the others were kept by, if
   * any; their keys read by the caller): the first in the order's two leading keys whose per-home best
   * (quota applied) number at least CANDIDATE_SLACK, every token of the last pair of keys taken. None
   * when even all of them give fewer than IDENTIFIER_CAP (each call then ranks every token: a short
   * session). `count`: the table's size now.
   */
  #bounded(ids: readonly number[], count: number): Candidates | undefined {
    const primary = this.#primary;
    const { stats, length } = this.tokens;
    const offset = this.#homeOffset();
    const df = (id: number): number => stats[id * STAT_STRIDE + STAT_DF] ?? 0;
    // Negative: `a` first in the two leading keys.
    const lead = (a: number, b: number): number => (primary[a] ?? 0) - (primary[b] ?? 0) || (length[b] ?? 0) * df(a) - (length[a] ?? 0) * df(b);
    const order = Int32Array.from(ids).sort(lead);
    const total = order.length;
    const perHome = new Map<number, number>();
    let identifiers = 0;
    let end = 0;
    while (end < total && identifiers < CANDIDATE_SLACK) {
      // Every token of these keys, then count what they add.
      const first = order[end] ?? 0;
      while (end < total && lead(order[end] ?? 0, first) === 0) {
        const h = stats[(order[end] ?? 0) * STAT_STRIDE + offset] ?? 0;
        const n = perHome.get(h) ?? 0;
        if (n < PER_BLOCK_QUOTA) identifiers += 1;
        perHome.set(h, n + 1);
        end += 1;
      }
    }
    if (identifiers < IDENTIFIER_CAP) return undefined;
    const last = order[end - 1] ?? 0;
    const bound = { primary: primary[last] ?? 0, length: length[last] ?? 0, df: df(last) };
    return { bound, ids: Array.from(order.subarray(0, end)), size: count, flips: this.tokens.largeFlips.length };
  }

  /** A token's home block is where it was seen last (recent) or first: the stat at this offset. */
  #homeOffset(): number {
    return this.recent ? STAT_LAST : STAT_FIRST;
  }

  /**
   * The best PER_BLOCK_QUOTA of `ids` (by `#better`) of each home, in one flat table kept between calls
   * (PER_BLOCK_QUOTA slots per home below `homes`): no array per home. Only the homes `#meet` marked are
   * made again (all of them when the table does not hold the last call's candidates): every other home
   * holds the same candidates with the same keys, so the same best.
   */
  #quotaPool(ids: readonly number[]): number[] {
    const stats = this.tokens.stats;
    const offset = this.#homeOffset();
    const better = this.#better();
    const slots = this.#slots;
    const filled = this.#filled;
    const dirty = this.#dirty;
    const listed = this.#listed;
    const all = !this.#poolValid;
    if (all) {
      for (const key of this.#homes) {
        filled[key] = 0;
        listed[key] = 0;
      }
      this.#homes = [];
    } else for (const key of this.#dirtyHomes) filled[key] = 0;
    const list = this.#homes;
    for (const id of ids) {
      const key = stats[id * STAT_STRIDE + offset] ?? 0;
      if (!all && dirty[key] !== 1) continue;
      if (listed[key] !== 1) {
        listed[key] = 1;
        list.push(key);
      }
      keepInHome(slots, filled, key, id, better);
    }
    const dirtyCount = this.#dirtyHomes.length;
    for (const key of this.#dirtyHomes) dirty[key] = 0;
    this.#dirtyHomes = [];
    const pool: number[] = [];
    let n = 0;
    for (const key of list) {
      const base = key * PER_BLOCK_QUOTA;
      const held = filled[key] ?? 0;
      if (held === 0) {
        listed[key] = 0;
        continue;
      }
      list[n++] = key;
      for (let i = 0; i < held; i++) pool.push(slots[base + i] ?? 0);
    }
    list.length = n;
    IdentifierRanker.homesMade += all ? n : dirtyCount;
    IdentifierRanker.homesHeld += n;
    this.#poolValid = true;
    return pool;
  }

  #better(): TokenOrder {
    const primary = this.#primary;
    const rank = this.#rank();
    return (a, b) => {
      const d = (primary[a] ?? 0) - (primary[b] ?? 0);
      return d !== 0 ? d : rank(a, b);
    };
  }

  /** The full order (negative = `a` kept first), reading the rarities of the ids being ranked. */
  #rank(): TokenOrder {
    const recent = this.recent;
    const tokens = this.tokens;
    const { stats, length } = tokens;
    const rarity = this.#rarity;
    return (a, b) => {
      const sa = a * STAT_STRIDE;
      const sb = b * STAT_STRIDE;
      const largeA = stats[sa + STAT_LARGE] ?? 0;
      const largeB = stats[sb + STAT_LARGE] ?? 0;
      if (largeA !== largeB) return largeA === 1 ? -1 : 1;
      // Made of rare parts: "retryHandle_anYfS" over "JournalLeaseError" built from common words.
      const rarityA = rarity[a] ?? 0;
      const rarityB = rarity[b] ?? 0;
      if (rarityA !== rarityB) return rarityA - rarityB;
      // rarer and longer: length per block it appears in, compared without division
      const dfA = stats[sa + STAT_DF] ?? 0;
      const dfB = stats[sb + STAT_DF] ?? 0;
      const score = (length[b] ?? 0) * dfA - (length[a] ?? 0) * dfB;
      if (score !== 0) return score;
      const lastA = stats[sa + STAT_LAST] ?? 0;
      const lastB = stats[sb + STAT_LAST] ?? 0;
      if (recent && lastA !== lastB) return lastB - lastA;
      if (dfA !== dfB) return dfA - dfB;
      const firstA = stats[sa + STAT_FIRST] ?? 0;
      const firstB = stats[sb + STAT_FIRST] ?? 0;
      if (firstA !== firstB) return recent ? firstB - firstA : firstA - firstB;
      return tokens.compareText(a, b);
    };
  }
}
