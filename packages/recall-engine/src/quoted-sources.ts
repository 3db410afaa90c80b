// Which tool output an assistant's prose quotes. Right after a command prints something, the assistant
// reads it back in its own words ("the API returned 751 tickers, 89 under $5") and repeats the output's
// rare values (counts, ids, versions, dated file names) verbatim. Those words are the output's caption: a question asked
// in the prose's language finds the prose, and ranking lends its score to the output it quotes, so the
// source of a fact ranks above the prose restating it (what the user and the tools said comes first).
import type { Block } from "@context-fold/ledger-reader";
import type { TermIndex } from "./term-index.js";
import { tokenize } from "./tokenizer.js";

/** Tool outputs looked at, walking back from the prose through the same turn. */
export const QUOTE_LOOKBACK = 12;
/** Blocks walked back from the prose looking for them and for the user's message opening the turn. */
export const QUOTE_WALK = 256;
/** A term held by at most this many blocks is rare enough that two blocks sharing it share a source. */
export const QUOTE_RARE_DF = 16;
/** Rare terms an output must share with the prose to count as quoted: one could be a coincidence. */
export const QUOTE_MIN_SHARED = 2;
/** Prose read for its terms (a long answer's quoting is at its start, and the read stays bounded). */
const QUOTE_READ_CHARS = 8192;

/** Prose: what the assistant wrote or thought, as opposed to what a tool or the user said. */
export function isProse(kind: Block["kind"]): boolean {
  return kind === "text" || kind === "thinking";
}

/**
 * Values are what prose repeats from an output verbatim (counts, versions, ids, hashes, dated file
 * names): terms holding a digit. Words it shares with the output ("refresh", "token") are the topic, not
 * a quotation.
 */
function hasDigit(term: string): boolean {
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i);
    if (c >= 48 && c <= 57) return true;
  }
  return false;
}

/** Whether `doc` is in the [doc, tf, …] list (doc order): a binary search over the even places. */
export function holds(list: ArrayLike<number>, doc: number): boolean {
  let lo = 0;
  let hi = list.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const at = list[2 * mid] as number;
    if (at === doc) return true;
    if (at < doc) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/**
 * The tool output (`toolResult`, `!cmd` block) prose block `doc` quotes: of those before it in its turn,
 * at most `QUOTE_LOOKBACK` back, the one holding the most of the prose's rare values, at least
 * `QUOTE_MIN_SHARED`; empty when none does or the block is not prose. `skip` marks blocks that are not
 * history.
 */
export function quotedSources(blocks: readonly Block[], doc: number, terms: TermIndex, skip: (doc: number) => boolean): number[] {
  const prose = blocks[doc];
  if (prose === undefined || !isProse(prose.kind)) return [];
  const outputs: number[] = [];
  for (let k = doc - 1; k >= 0 && doc - k <= QUOTE_WALK; k--) {
    const block = blocks[k] as Block;
    if (block.turn !== prose.turn) break;
    // The message that opened the turn: the user states values too ("accent #8abeb7, error cc6666"),
    // and the reply carrying them out repeats them.
    if (block.kind === "user") {
      if (!skip(k)) outputs.push(k);
      break;
    }
    if ((block.kind === "toolResult" || block.kind === "bash") && !skip(k) && outputs.length < QUOTE_LOOKBACK) outputs.push(k);
  }
  if (outputs.length === 0) return [];
  const rare = new Set<number>();
  tokenize(prose.text.length > QUOTE_READ_CHARS ? prose.text.slice(0, QUOTE_READ_CHARS) : prose.text, (term, whole) => {
    if (!whole || !hasDigit(term)) return;
    const id = terms.termId(term);
    if (id >= 0 && !rare.has(id)) rare.add(id);
  });
  const shared = new Array<number>(outputs.length).fill(0);
  for (const id of rare) {
    const lists = terms.postingListsOf(id);
    let df = 0;
    for (const list of lists) df += list.length / 2;
    if (df > QUOTE_RARE_DF) continue;
    outputs.forEach((out, j) => {
      if (lists.some((list) => holds(list, out))) shared[j] = (shared[j] as number) + 1;
    });
  }
  // The one output sharing the most (the nearest on a tie): a turn's closing summary quotes a value
  // from each of many outputs, and is the caption of none of them but the one it draws on most.
  let best = -1;
  let most = QUOTE_MIN_SHARED - 1;
  shared.forEach((count, j) => {
    if (count > most) {
      most = count;
      best = j;
    }
  });
  return best < 0 ? [] : [outputs[best] as number];
}
