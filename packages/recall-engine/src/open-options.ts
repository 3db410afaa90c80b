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
  /**
   * A plain search (words or a browse) of a session file of more than this many bytes, whose cache or
   * block table does not match it, builds both streamed, in bounded memory, and answers from them
   * (default 112 MiB: `STREAM_ABOVE`). 0 streams every size; Infinity never.
   */
  readonly streamAbove?: number;
}
