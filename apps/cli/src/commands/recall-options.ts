// `context-fold recall`'s options, declared once: commander registers them from this table (recall.ts),
// and the binary's fast path (recall-argv.ts) parses a plain recall from the same table without loading
// commander. Loads nothing itself.

/** One option as commander takes it: `--long`, `--long <value>`, `--long [value]` or `--no-long`. */
export interface RecallOptionSpec {
  readonly flags: string;
  readonly description: string;
}

/** What commander hands the action: each option under its camelCase name. */
export interface RecallOptions {
  sessions?: string | true;
  scope?: string;
  page?: string;
  pageSize?: string;
  expand?: string;
  code?: string;
  anchor?: string;
  term?: string;
  grep?: string;
  lines?: string;
  fullOutput?: boolean;
  roots?: string;
  regex?: boolean;
  cacheDir?: string;
  cache?: boolean;
  fragment?: boolean;
  json?: boolean;
  in?: string;
  project?: string;
  since?: string;
  until?: string;
}

export const RECALL_DESCRIPTION =
  'Search a session\'s history (BM25 words, "phrases", /regex/ or bare regex syntax), browse, expand #N verified, or pull seed-index spans';

/** The positional arguments, in order: the session, then the query words. */
export const RECALL_ARGUMENTS: readonly { readonly name: string; readonly description: string }[] = [
  { name: "[session]", description: "session .jsonl file (omit with --sessions)" },
  {
    name: "[query...]",
    description: 'words, "quoted phrases", /regex/flags, or a bare regex as pi-vcc takes it (fail.*build, hook|inject, \\d, [0-9]+, ^…, …$); none: the last 25 entries',
  },
];

/** In the order `recall --help` lists them. */
export const RECALL_OPTIONS: readonly RecallOptionSpec[] = [
  {
    flags: "--sessions [dir]",
    description:
      "search every session under a sessions folder through its history index (default: Pi's folder, honouring PI_CODING_AGENT_DIR and sessionDir); a value that is not a folder is the first query word",
  },
  { flags: "--scope <scope>", description: "lineage (default), all, compaction:N, compaction:latest (with --sessions: per session)" },
  { flags: "--project <dir>", description: "with --sessions: only sessions started in this folder" },
  { flags: "--since <date>", description: "with --sessions: only sessions started on or after this date (2026-03-01 or an ISO time)" },
  { flags: "--until <date>", description: "with --sessions: only sessions started before this date" },
  { flags: "--in <session>", description: "with --sessions --expand: the session a hit names (its label, id or path)" },
  { flags: "--page <n>", description: "page of results (5 per page)" },
  { flags: "--page-size <n>", description: "results per page" },
  { flags: "--expand <list>", description: "full text of #N blocks, e.g. 12,13 (verified against the ledger)" },
  { flags: "--code <code>", description: "seed-index span by fold code" },
  { flags: "--anchor <anchor>", description: "seed-index span by anchor (r:<toolCallId> or a:<responseId>:p<n>)" },
  { flags: "--term <term>", description: "seed-index spans of records whose identifiers/errors/files hold the term" },
  { flags: "--grep <pattern>", description: "with a span: only lines matching the pattern (RE2 syntax)" },
  { flags: "--lines <from-to>", description: "with a span: only this 1-based line range" },
  { flags: "--full-output", description: "with a span: scan Pi's full-output file when one was kept (under --roots)" },
  { flags: "--roots <dirs>", description: "comma-separated roots a full-output file must lie under (default: the OS temp dir)" },
  { flags: "--regex", description: "take the query as a regex (case-insensitive)" },
  {
    flags: "--cache-dir <dir>",
    description: "keep the recall index cache here (default: beside the seed index; with --sessions the history index goes under <dir>/history, else the state folder)",
  },
  { flags: "--no-cache", description: "build the index in memory; read and write no cache (with --sessions: read every session, no history index)" },
  { flags: "--fragment", description: "read a file without a session header (a fragment Pi refuses) as fragment-<sha256 prefix>" },
  { flags: "--json", description: "one JSON document on stdout" },
];
