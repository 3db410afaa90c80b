// The file ledger: every file the session read, edited or wrote, with its strongest status, the symbols
// seen in it and its latest signatures (for the type catalog). A modification also resolves outstanding
// items that name the file.
import { withoutDirectories } from "../lexicon/paths.js";
import { newContent } from "../tool-calls/tool-class.js";
import { extractSymbols, languageOf } from "../symbols/extract-symbols.js";
import { memoizeByOwner } from "../text-memo.js";
import type { OutstandingLedger } from "./outstanding-ledger.js";
import type { FileFact, FileStatus, TypeCatalogEntry } from "./types.js";

/** `extractSymbols` of a text, by the object it came from (a read's result block, an edit's arguments) and its path: see `memoizeByOwner`. */
const ownSymbols = memoizeByOwner((text: string, path: string) => extractSymbols(path, text));

/** Caps of the type catalog (pi-vcc's: 8 signatures per file, 12 files). */
export const TYPE_CATALOG_PER_FILE = 8;
export const TYPE_CATALOG_FILES = 12;
const MAX_SYMBOLS_PER_FILE = 24;
const MAX_SIGNATURES_KEPT = 16;
const KEY_FILES = 12;

const STATUS_RANK: Readonly<Record<FileStatus, number>> = { read: 0, modified: 1, created: 2 };

export interface FileState {
  path: string;
  status: FileStatus;
  symbols: string[];
  symbolSet: Set<string>;
  signatures: string[];
  sigIndex: number;
  firstIndex: number;
  lastIndex: number;
  lastModifiedIndex: number | undefined;
  /**
   * The fact `facts` last made of this state: handed out again while the state is the same (a turn's end
   * takes a snapshot of every file, and most files did not change), so a snapshot's unchanged files keep
   * their identity and the parts made of them are found by it. Symbols only grow, so their count says
   * whether they changed.
   */
  fact?: FileFact | undefined;
}

/** `f`'s fact as `facts` makes it, frozen (snapshots share it: no reader may change it for the others). */
function factOf(f: FileState): FileFact {
  return Object.freeze({
    path: f.path,
    status: f.status,
    symbols: Object.freeze([...f.symbols]),
    firstIndex: f.firstIndex,
    lastIndex: f.lastIndex,
    ...(f.lastModifiedIndex !== undefined ? { lastModifiedIndex: f.lastModifiedIndex } : {}),
  });
}

/** Does `fact` (made of `f` earlier) still say what `f` says? */
function sameFact(fact: FileFact, f: FileState): boolean {
  return (
    fact.status === f.status &&
    fact.firstIndex === f.firstIndex &&
    fact.lastIndex === f.lastIndex &&
    fact.lastModifiedIndex === f.lastModifiedIndex &&
    fact.symbols.length === f.symbols.length
  );
}

export class FileLedger {
  private readonly files = new Map<string, FileState>();
  /** Modifications since the last user message (a blocker reported earlier counts as handled). */
  modificationCount = 0;
  lastModification: { text: string; index: number } | undefined;

  constructor(private readonly outstanding: OutstandingLedger) {}

  has(path: string): boolean {
    return this.files.has(path);
  }

  /** A read of `path` whose result is `content` (`owner`: the object it came from, its answers remembered by it). */
  read(path: string, index: number, content: string, owner?: object): void {
    this.addSymbols(this.fileState(path, index), content, index, true, owner);
  }

  /** An edit or write tool call that succeeded. */
  modify(path: string, cls: "edit" | "write", args: Readonly<Record<string, unknown>> | undefined, index: number): void {
    const existed = this.files.has(path);
    const f = this.recordModification(
      path,
      cls === "write" && !existed ? "created" : "modified",
      index,
      `${cls === "write" ? "Write" : "Edit"} ${JSON.stringify(path)}`,
    );
    this.addSymbols(f, newContent(cls, args), index, cls === "write", args);
  }

  recordModification(path: string, status: FileStatus, index: number, action: string): FileState {
    const f = this.fileState(path, index);
    if (STATUS_RANK[status] > STATUS_RANK[f.status]) f.status = status;
    f.lastModifiedIndex = index;
    this.modificationCount++;
    this.lastModification = { text: action, index };
    this.outstanding.resolveFile(path, index);
    return f;
  }

  facts(): FileFact[] {
    const files: FileFact[] = [];
    for (const f of this.files.values()) {
      const held = f.fact;
      files.push(held !== undefined && sameFact(held, f) ? held : (f.fact = factOf(f)));
    }
    // A path another one lies under is a directory (a `read` of it, a copy into it), not a file.
    return [...withoutDirectories(files)];
  }

  /** The most recently modified files, newest first. */
  keyFiles(): string[] {
    return [...this.files.values()]
      .filter((f) => f.lastModifiedIndex !== undefined)
      .sort((a, b) => (b.lastModifiedIndex ?? 0) - (a.lastModifiedIndex ?? 0))
      .slice(0, KEY_FILES)
      .map((f) => f.path);
  }

  /** Files the session created or modified, in first-seen order (directories left out, as in `facts`). */
  modifiedPaths(): string[] {
    const files: string[] = [];
    for (const f of withoutDirectories([...this.files.values()])) if (f.status !== "read") files.push(f.path);
    return files;
  }

  typeCatalog(): TypeCatalogEntry[] {
    const withSigs = [...this.files.values()].filter((f) => f.signatures.length > 0);
    withSigs.sort((a, b) => {
      const ra = a.status === "read" ? 1 : 0;
      const rb = b.status === "read" ? 1 : 0;
      return ra - rb || b.lastIndex - a.lastIndex;
    });
    const out: TypeCatalogEntry[] = [];
    for (const f of withSigs.slice(0, TYPE_CATALOG_FILES)) {
      for (const line of f.signatures.slice(0, TYPE_CATALOG_PER_FILE)) {
        out.push({ path: f.path, status: f.status, line, index: f.sigIndex });
      }
    }
    return out;
  }

  private fileState(path: string, index: number): FileState {
    let f = this.files.get(path);
    if (f === undefined) {
      f = {
        path,
        status: "read",
        symbols: [],
        symbolSet: new Set(),
        signatures: [],
        sigIndex: index,
        firstIndex: index,
        lastIndex: index,
        lastModifiedIndex: undefined,
      };
      this.files.set(path, f);
    }
    f.lastIndex = index;
    return f;
  }

  private addSymbols(f: FileState, text: string, index: number, replaceSignatures: boolean, owner: object | undefined): void {
    if (text.length === 0 || languageOf(f.path) === null) return;
    const scan = owner === undefined ? extractSymbols(f.path, text) : ownSymbols(owner, text, f.path);
    for (const name of scan.names) {
      if (f.symbolSet.has(name) || f.symbols.length >= MAX_SYMBOLS_PER_FILE) continue;
      f.symbolSet.add(name);
      f.symbols.push(name);
    }
    if (scan.signatures.length === 0) return;
    if (replaceSignatures) f.signatures = [];
    for (const s of scan.signatures) {
      if (f.signatures.length >= MAX_SIGNATURES_KEPT) break;
      if (!f.signatures.includes(s)) f.signatures.push(s);
    }
    f.sigIndex = index;
  }
}
