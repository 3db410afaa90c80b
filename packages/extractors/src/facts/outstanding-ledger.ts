// The outstanding ledger: errors, failures, blockers and empty searches, one item per key. An item seen
// again is live again at its latest place; an edit of the file it names, or a clean rerun of the command
// that reported it, resolves it. Lookups go through indexes by basename and by command key, so each new
// block costs O(items it touches), never a scan of the whole ledger.
import type { OutstandingItem, OutstandingSource, Severity } from "./types.js";

const SEVERITY_RANK: Readonly<Record<Severity, number>> = { ERROR: 0, WARN: 1, INFO: 2 };

export interface Item {
  key: string;
  severity: Severity;
  resolved: boolean;
  resolvedIndex: number | undefined;
  text: string;
  source: OutstandingSource;
  label: string;
  file: string | undefined;
  command: string | undefined;
  /** Every command whose output reported it: any of them succeeding cleanly resolves it. */
  commandKeys: Set<string>;
  errorId: string | undefined;
  turn: number;
  index: number;
  order: number;
}

export interface ItemInput {
  key: string;
  severity: Severity;
  source: OutstandingSource;
  label: string;
  text: string;
  file: string | undefined;
  command: string | undefined;
  commandKey?: string;
  errorId: string | undefined;
  turn: number;
  index: number;
}

export class OutstandingLedger {
  private readonly items = new Map<string, Item>();
  private itemOrder = 0;
  /** Open items that name a file, by basename of that file. */
  private readonly openByBase = new Map<string, Set<Item>>();
  /** Open items by command key. */
  private readonly openByCommand = new Map<string, Set<Item>>();

  upsert(input: ItemInput): Item {
    let item = this.items.get(input.key);
    if (item === undefined) {
      item = {
        key: input.key,
        severity: input.severity,
        resolved: false,
        resolvedIndex: undefined,
        text: input.text,
        source: input.source,
        label: input.label,
        file: input.file,
        command: input.command,
        commandKeys: new Set(),
        errorId: input.errorId,
        turn: input.turn,
        index: input.index,
        order: this.itemOrder++,
      };
      this.items.set(input.key, item);
    } else {
      // Seen again: it is live again, at its latest place.
      item.resolved = false;
      item.resolvedIndex = undefined;
      item.text = input.text;
      item.label = input.label;
      item.turn = input.turn;
      item.index = input.index;
      item.order = this.itemOrder++;
    }
    if (item.file !== undefined) {
      const base = basename(item.file);
      let set = this.openByBase.get(base);
      if (set === undefined) this.openByBase.set(base, (set = new Set()));
      set.add(item);
    }
    if (input.commandKey !== undefined && input.commandKey.length > 0) {
      item.commandKeys.add(input.commandKey);
      if (input.command !== undefined) item.command = input.command;
      let set = this.openByCommand.get(input.commandKey);
      if (set === undefined) this.openByCommand.set(input.commandKey, (set = new Set()));
      set.add(item);
    }
    return item;
  }

  resolve(item: Item, index: number): void {
    if (item.resolved) return;
    item.resolved = true;
    item.resolvedIndex = index;
  }

  /** Items that point at this file are taken as handled once the file is edited afterwards. */
  resolveFile(path: string, index: number): void {
    const open = this.openByBase.get(basename(path));
    if (open === undefined) return;
    for (const item of open) {
      if (item.file !== undefined && item.index < index && sameFile(item.file, path)) {
        this.resolve(item, index);
        open.delete(item);
      }
    }
  }

  /** The same command succeeding resolves what its earlier runs reported. */
  resolveCommand(key: string, index: number): void {
    const open = this.openByCommand.get(key);
    if (open === undefined) return;
    for (const item of open) this.resolve(item, index);
    this.openByCommand.delete(key);
  }

  /** Open first (by severity), then resolved; within each, in session order. */
  sorted(): Item[] {
    const all = [...this.items.values()];
    all.sort((a, b) => {
      if (a.resolved !== b.resolved) return a.resolved ? 1 : -1;
      if (!a.resolved && a.severity !== b.severity) return SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity];
      return a.index - b.index || a.order - b.order;
    });
    return all;
  }
}

export function toOutstanding(item: Item): OutstandingItem {
  return {
    severity: item.severity,
    resolved: item.resolved,
    ...(item.resolvedIndex !== undefined ? { resolvedIndex: item.resolvedIndex } : {}),
    text: item.text,
    source: item.source,
    label: item.label,
    ...(item.file !== undefined ? { file: item.file } : {}),
    ...(item.command !== undefined ? { command: item.command } : {}),
    ...(item.errorId !== undefined ? { errorId: item.errorId } : {}),
    turn: item.turn,
    index: item.index,
  };
}

export function basename(path: string): string {
  const slash = path.lastIndexOf("/");
  return slash >= 0 ? path.slice(slash + 1) : path;
}

/** Same file when equal, or one is the other with a leading directory part (tsc prints cwd-relative). */
function sameFile(a: string, b: string): boolean {
  if (a === b) return true;
  return a.endsWith(`/${b}`) || b.endsWith(`/${a}`);
}
