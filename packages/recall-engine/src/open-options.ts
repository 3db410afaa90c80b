// How a session's recall is opened: where its caches are kept, whether at all, and how a file is read.
export interface OpenRecallOptions {
  /** Keep caches here instead of beside the seed index. */
  readonly cacheDir?: string;
  /** Exact cache file (overrides cacheDir). */
  readonly cachePath?: string;
  /** false: build in memory, never read or write a cache. */
  readonly cache?: boolean;
  /** Read a headerless file as a fragment (ledger-reader's `fragment` read option); its caches go under `context-fold/fragment-<hash>/`. */
  readonly fragment?: boolean;
  /** Progress of reading the ledger when it has to be read (bytes read, file size). */
  readonly onBytes?: (read: number, total: number) => void;
}
