// Reads a summary we rendered in the bracketed layout back into its SummaryDoc, exactly: nothing is
// wrapped or trimmed, so parseSummary(renderBrackets(doc)) deep-equals doc. String scanning, no regex
// over summary text except one anchored footer pattern without nested quantifiers.
import { SummaryError } from "./errors.js";
import type {
  CatalogFile,
  CommitItem,
  FileItem,
  FileStatus,
  FooterDoc,
  LineItem,
  Omission,
  OutstandingDoc,
  OutstandingTag,
  PreviousSummaryDoc,
  StatementItem,
  SummaryDoc,
  VerbatimItem,
} from "./summary-doc.js";
import {
  CONTINUATION,
  FOOTER_RULE,
  OMISSION_PREFIX,
  RECALL_HINT,
  SECTION,
  SUMMARY_MARKER,
  TAG_CORRECTION,
  TAG_FOUNDING,
  TAG_PREFERENCE,
  TAG_SCOPE,
  TAG_USER,
  TAG_USER_COUNTED,
} from "./summary-syntax.js";

/** true when `text` is a summary context-fold rendered in the bracketed layout. */
export function isOwnSummary(text: string): boolean {
  return text.startsWith(`${SUMMARY_MARKER}\n`);
}

const TITLES = new Map<string, string>(Object.values(SECTION).map((t) => [`[${t}]`, t]));
const DIGITS = /^\d+$/;
const FOOTER =
  /^Compacted at (\S+) \| (\d+) messages ~(\d+) tok → summary ~(\d+) tok \(\d+\.\dx\) \| tail: (\d+) messages ~(\d+) tok \| range: (?:#(\d+)–#(\d+)|none)$/;
const SYMBOL = /^[^\s,()]+$/;

interface Item {
  /** The `- ` line without its "- " prefix. */
  head: string;
  /** Continuation lines without their two-space indent. */
  more: string[];
  line: number;
}

function fail(message: string, line: number): never {
  throw new SummaryError("SUMMARY_PARSE", `not a context-fold summary we can read: ${message} (line ${String(line)})`, line);
}

/** Splits "text (#N)" into its text and N. */
function splitRef(s: string, line: number): { text: string; index: number } {
  if (!s.endsWith(")")) fail(`expected a trailing (#N) in "${s.slice(0, 80)}"`, line);
  const at = s.lastIndexOf(" (#");
  const digits = at < 0 ? "" : s.slice(at + 3, -1);
  if (!DIGITS.test(digits)) fail(`expected a trailing (#N) in "${s.slice(0, 80)}"`, line);
  return { text: s.slice(0, at), index: Number(digits) };
}

function parseOmission(head: string, line: number): Omission {
  // head = "… and <count> <what> (recall: <recall>)"
  const body = head.slice(OMISSION_PREFIX.length - 2);
  const space = body.indexOf(" ");
  const count = body.slice(0, space);
  const at = body.lastIndexOf(" (recall: ");
  if (space < 0 || !DIGITS.test(count) || at < space || !body.endsWith(")")) fail(`malformed omission line "${head.slice(0, 80)}"`, line);
  return { count: Number(count), what: body.slice(space + 1, at), recall: body.slice(at + 10, -1) };
}

const isOmission = (head: string): boolean => `- ${head}`.startsWith(OMISSION_PREFIX);

function verbatim(item: Item, tag: string): VerbatimItem {
  const all = [item.head.slice(tag.length), ...item.more].join("\n");
  return splitRef(all, item.line);
}

function parseFile(head: string, line: number): FileItem {
  const { text, index } = splitRef(head, line);
  const colon = text.indexOf(": ");
  const label = text.slice(0, colon);
  const status: FileStatus | undefined = label === "Modified" ? "modified" : label === "Created" ? "created" : label === "Read" ? "read" : undefined;
  if (colon < 0 || status === undefined) fail(`unknown file status in "${head.slice(0, 80)}"`, line);
  let path = text.slice(colon + 2);
  let symbols: string[] = [];
  if (path.endsWith(")")) {
    const open = path.lastIndexOf(" (");
    const inner = open < 0 ? null : path.slice(open + 2, -1);
    if (inner !== null && (inner === "" || inner.split(", ").every((s) => SYMBOL.test(s)))) {
      symbols = inner === "" ? [] : inner.split(", ");
      path = path.slice(0, open);
    }
  }
  return { status, path, symbols, index };
}

function parseOutstanding(head: string, line: number): OutstandingDoc {
  const tagEnd = head.indexOf("] ");
  const tag = head.slice(1, tagEnd) as OutstandingTag;
  if (!head.startsWith("[") || !["ERROR", "WARN", "INFO", "RESOLVED"].includes(tag)) fail(`unknown severity tag in "${head.slice(0, 80)}"`, line);
  const rest = head.slice(tagEnd + 2);
  const labelEnd = rest.indexOf("] ");
  if (!rest.startsWith("[") || labelEnd < 0) fail(`missing [label] in "${head.slice(0, 80)}"`, line);
  const label = rest.slice(1, labelEnd);
  const body = rest.slice(labelEnd + 2);
  const arrow = body.lastIndexOf(" (#");
  const inner = arrow < 0 ? "" : body.slice(arrow + 3, -1);
  const sep = inner.indexOf(" → #");
  if (body.endsWith(")") && sep > 0 && DIGITS.test(inner.slice(0, sep)) && DIGITS.test(inner.slice(sep + 4))) {
    return { tag, label, text: body.slice(0, arrow), index: Number(inner.slice(0, sep)), resolvedIndex: Number(inner.slice(sep + 4)) };
  }
  const { text, index } = splitRef(body, line);
  return { tag, label, text, index };
}

function parseFooter(lines: readonly string[], start: number): FooterDoc {
  const m = FOOTER.exec(lines[start] ?? "");
  if (m === null) fail("malformed footer line", start + 1);
  if (lines[start + 1] !== "" || lines[start + 2] !== RECALL_HINT) fail("missing recall hint after the footer", start + 2);
  const n = (i: number): number => Number(m[i]);
  return {
    at: m[1] ?? "",
    messages: n(2),
    windowTokens: n(3),
    summaryTokens: n(4),
    tailMessages: n(5),
    tailTokens: n(6),
    range: m[7] === undefined ? null : { from: n(7), to: n(8) },
  };
}

/**
 * `text` parsed when it is one of our summaries and intact; null when it is foreign, or marked as ours
 * but damaged (then taken as foreign, never dropped). The one rule for how a previous summary is read.
 */
export function parseOwnSummary(text: string): SummaryDoc | null {
  if (!isOwnSummary(text)) return null;
  try {
    return parseSummary(text);
  } catch {
    return null;
  }
}

/** Parses a summary rendered by `renderBrackets`. Throws SummaryError (code SUMMARY_PARSE) otherwise. */
export function parseSummary(text: string): SummaryDoc {
  if (!isOwnSummary(text)) fail(`the first line is not "${SUMMARY_MARKER}"`, 1);
  const lines = (text.endsWith("\n") ? text.slice(0, -1) : text).split("\n");
  const sections = new Map<string, Item[]>();
  const briefLines: string[] = [];
  let current: string | null = null;
  let footerAt = -1;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (line === FOOTER_RULE) {
      footerAt = i + 1;
      break;
    }
    if (line === "") continue;
    const title = TITLES.get(line);
    if (title !== undefined) {
      if (sections.has(title)) fail(`section [${title}] appears twice`, i + 1);
      current = title;
      sections.set(title, []);
      continue;
    }
    if (current === null) fail(`text before the first section: "${line.slice(0, 80)}"`, i + 1);
    if (current === SECTION.brief) {
      briefLines.push(line);
      continue;
    }
    const items = sections.get(current) ?? [];
    if (line.startsWith("- ")) items.push({ head: line.slice(2), more: [], line: i + 1 });
    else if (line.startsWith(CONTINUATION) && items.length > 0) items[items.length - 1]?.more.push(line.slice(2));
    else fail(`unexpected line in [${current}]: "${line.slice(0, 80)}"`, i + 1);
  }
  if (footerAt < 0) fail("no footer (a line `---`)", lines.length);
  const footer = parseFooter(lines, footerAt);
  const get = (title: string): Item[] => sections.get(title) ?? [];

  let goal: VerbatimItem | null = null;
  const scopeChanges: LineItem[] = [];
  let scopeOmitted: Omission | null = null;
  for (const item of get(SECTION.goal)) {
    if (item.head.startsWith(TAG_FOUNDING)) goal = verbatim(item, TAG_FOUNDING);
    else if (item.head.startsWith(TAG_SCOPE)) scopeChanges.push(splitRef(item.head.slice(TAG_SCOPE.length), item.line));
    else if (isOmission(item.head)) scopeOmitted = parseOmission(item.head, item.line);
    else fail(`unexpected goal item "${item.head.slice(0, 80)}"`, item.line);
  }

  const preferences: LineItem[] = [];
  const corrections: VerbatimItem[] = [];
  let correctionsOmitted: Omission | null = null;
  for (const item of get(SECTION.preferences)) {
    if (item.head.startsWith(TAG_PREFERENCE)) preferences.push(splitRef(item.head.slice(TAG_PREFERENCE.length), item.line));
    else if (item.head.startsWith(TAG_CORRECTION)) corrections.push(verbatim(item, TAG_CORRECTION));
    else if (isOmission(item.head)) correctionsOmitted = parseOmission(item.head, item.line);
    else fail(`unexpected preference item "${item.head.slice(0, 80)}"`, item.line);
  }

  const statements: StatementItem[] = [];
  let statementsOmitted: Omission | null = null;
  for (const item of get(SECTION.statements)) {
    if (isOmission(item.head)) statementsOmitted = parseOmission(item.head, item.line);
    else if (item.head.startsWith(TAG_USER)) statements.push({ ...splitRef(item.head.slice(TAG_USER.length), item.line), count: 1 });
    else if (item.head.startsWith(TAG_USER_COUNTED)) {
      const close = item.head.indexOf("] ");
      const digits = close < 0 ? "" : item.head.slice(TAG_USER_COUNTED.length, close);
      if (!DIGITS.test(digits)) fail(`malformed statement count in "${item.head.slice(0, 80)}"`, item.line);
      statements.push({ ...splitRef(item.head.slice(close + 2), item.line), count: Number(digits) });
    } else fail(`unexpected statement item "${item.head.slice(0, 80)}"`, item.line);
  }

  const files: FileItem[] = [];
  const filesOmitted: Omission[] = [];
  for (const item of get(SECTION.files)) {
    if (isOmission(item.head)) filesOmitted.push(parseOmission(item.head, item.line));
    else files.push(parseFile(item.head, item.line));
  }

  const commits: CommitItem[] = [];
  let commitsOmitted: Omission | null = null;
  for (const item of get(SECTION.commits)) {
    if (isOmission(item.head)) {
      commitsOmitted = parseOmission(item.head, item.line);
      continue;
    }
    const { text, index } = splitRef(item.head, item.line);
    const colon = text.indexOf(": ");
    if (colon < 0) fail(`commit line without "hash: " in "${item.head.slice(0, 80)}"`, item.line);
    commits.push({ hash: text.slice(0, colon), subject: text.slice(colon + 2), index });
  }

  const anchors = { commits: [] as string[], errors: [] as string[], files: [] as string[] };
  for (const item of get(SECTION.anchors)) {
    const colon = item.head.indexOf(": ");
    const key = item.head.slice(0, colon);
    if (key !== "commits" && key !== "errors" && key !== "files") fail(`unknown anchor kind "${key}"`, item.line);
    anchors[key] = item.head.slice(colon + 2).split(", ");
  }

  const previous: PreviousSummaryDoc[] = [];
  for (const item of get(SECTION.previous)) {
    if (!item.head.startsWith("from ") || !item.head.endsWith(":")) fail(`malformed previous-summary header "${item.head.slice(0, 80)}"`, item.line);
    const head = item.head.slice(5, -1);
    if (head.endsWith(")")) {
      const { text, index } = splitRef(head, item.line);
      previous.push({ label: text, index, lines: item.more });
    } else previous.push({ label: head, index: null, lines: item.more });
  }

  const typeCatalog: CatalogFile[] = [];
  let typeCatalogOmitted: Omission | null = null;
  for (const item of get(SECTION.typeCatalog)) {
    if (isOmission(item.head)) {
      typeCatalogOmitted = parseOmission(item.head, item.line);
      continue;
    }
    const open = item.head.lastIndexOf(" [");
    const status = item.head.slice(open + 2, -2);
    if (open < 0 || !item.head.endsWith("]:") || (status !== "modified" && status !== "created" && status !== "read"))
      fail(`malformed type-catalog header "${item.head.slice(0, 80)}"`, item.line);
    typeCatalog.push({ path: item.head.slice(0, open), status, lines: item.more });
  }

  const outstanding: OutstandingDoc[] = [];
  let outstandingOmitted: Omission | null = null;
  for (const item of get(SECTION.outstanding)) {
    if (isOmission(item.head)) outstandingOmitted = parseOmission(item.head, item.line);
    else outstanding.push(parseOutstanding(item.head, item.line));
  }

  const earlierTurns: LineItem[] = [];
  let earlierTurnsOmitted: Omission | null = null;
  for (const item of get(SECTION.earlierTurns)) {
    if (isOmission(item.head)) earlierTurnsOmitted = parseOmission(item.head, item.line);
    else earlierTurns.push(splitRef(item.head, item.line));
  }

  let focus: LineItem | null = null;
  let lastAction: LineItem | null = null;
  const next: string[] = [];
  for (const item of get(SECTION.status)) {
    if (item.head.startsWith("Working on: ")) focus = splitRef(item.head.slice(12), item.line);
    else if (item.head.startsWith("Last action: ")) lastAction = splitRef(item.head.slice(13), item.line);
    else if (item.head.startsWith("Next: ")) next.push(item.head.slice(6));
    else fail(`unexpected status item "${item.head.slice(0, 80)}"`, item.line);
  }

  let briefOmitted: Omission | null = null;
  const brief: string[] = [];
  for (const [i, line] of briefLines.entries()) {
    if (i === 0 && line.startsWith(OMISSION_PREFIX)) briefOmitted = parseOmission(line.slice(2), 0);
    else brief.push(line);
  }

  return {
    goal,
    scopeChanges,
    scopeOmitted,
    preferences,
    corrections,
    correctionsOmitted,
    statements,
    statementsOmitted,
    files,
    filesOmitted,
    commits,
    commitsOmitted,
    anchors,
    previous,
    typeCatalog,
    typeCatalogOmitted,
    outstanding,
    outstandingOmitted,
    earlierTurns,
    earlierTurnsOmitted,
    status: { focus, lastAction, next },
    brief,
    briefOmitted,
    footer,
  };
}
