// Turns a memory's text into the parts a claim is made of: frame tokens (the subject and the attribute,
// with every value slot abstracted), typed values (numbers, versions, endpoints, hosts, identifiers such as
// regions and model names, proper names such as people and products, owners, grades, statuses), values the
// sentence marks as previous ("up from 5", "instead of MySQL"), its polarity, and whether it is ephemeral
// run state. Values are recognized by their shape and their position, not by a list of expected words.
// Tokenizing is a single linear scan; the only regexes are anchored, unnested single-token checks.

/** `entity`: proper names, products, hosts, regions and other identifiers, owners, grades (one class: a
 * host in one memory and an identifier in another are still values of the same slot). */
export type ValueKind = "endpoint" | "version" | "number" | "date" | "status" | "entity";

export interface ClaimValue {
  readonly kind: ValueKind;
  readonly value: string;
}

export type Polarity = "affirmed" | "negated";

export interface TextAnalysis {
  /** Frame tokens: stemmed content words with values, stopwords and filler removed (sorted, unique). */
  readonly subject: readonly string[];
  /** Current claim values, sorted by kind then value, unique. */
  readonly values: readonly ClaimValue[];
  /** Values the text marks as no longer current ("up from 5", "instead of MySQL", "from X to Y"). */
  readonly prior: readonly ClaimValue[];
  /** Entity values in text order (the first one of several is often the grammatical subject). */
  readonly entityOrder: readonly string[];
  /** Capitalized sentence-initial words that may be a name or a common word ("Priya" / "Billing"):
   * resolved against the other memory of a comparison. Lower-cased, in text order. */
  readonly ambiguous: readonly string[];
  /** "not", "no longer", "never", "isn't" … negate the claim. */
  readonly polarity: Polarity;
  /** Environment qualifiers (prod, staging, …): a claim about staging is not a claim about prod. */
  readonly environments: readonly string[];
  /** CI / PR / run-status / execution state: judged by age only. */
  readonly ephemeral: boolean;
}

const STOPWORDS = new Set(
  ("a an the this that these those is are was were be been being am it its it's of to in on at for by with from as " +
    "and or but if then so than too very can could should would will shall may might must do does did has have had " +
    "we our us you your they their them he she his her i me my mine not no yes also just only about into onto over " +
    "under per via any all each every some such there here what which who whom whose when where why how " +
    "now currently current today still already again new latest recently anymore longer " +
    "moved move changed change updated update switched switch became become set configured configure " +
    "note noted fyi remember remembered apparently actually indeed seems seem turns turned out" +
    " according team's").split(" "),
);

/** Paraphrase normalization: a restated fact should land on the same subject tokens. */
const SYNONYMS: Readonly<Record<string, string>> = {
  like: "prefer", likes: "prefer", liked: "prefer", prefers: "prefer", preferred: "prefer", favor: "prefer", favour: "prefer",
  uses: "use", using: "use", used: "use", relies: "use", rely: "use", runs: "run", running: "run", ran: "run",
  svc: "service", services: "service", api: "service", microservice: "service",
  deployment: "deploy", deployments: "deploy", deploys: "deploy", deployed: "deploy", deploying: "deploy",
  replica: "replica", replicas: "replica", instances: "replica", instance: "replica", pods: "replica", pod: "replica",
  timeout: "timeout", timeouts: "timeout", "time-out": "timeout",
  limit: "limit", limits: "limit", capped: "limit", cap: "limit", max: "limit", maximum: "limit",
  owner: "own", owners: "own", owns: "own", owned: "own", ownership: "own", maintains: "own", maintained: "own",
  maintainer: "own", maintainers: "own", maintain: "own",
  endpoint: "endpoint", endpoints: "endpoint", route: "endpoint", url: "endpoint", path: "endpoint",
  version: "version", versions: "version", release: "version", pinned: "version", pin: "version",
  db: "database", databases: "database", datastore: "database",
  requests: "request", req: "request", rps: "request", second: "sec", seconds: "sec", secs: "sec",
  minutes: "min", mins: "min", minute: "min", ms: "ms", milliseconds: "ms",
  needs: "require", need: "require", requires: "require", required: "require", require: "require",
  approvals: "approval", reviews: "approval", review: "approval", reviewers: "approval",
  always: "always", prefer: "prefer", use: "use", run: "run",
};

const NUMBER_WORDS: Readonly<Record<string, string>> = {
  zero: "0", one: "1", two: "2", three: "3", four: "4", five: "5", six: "6", seven: "7", eight: "8",
  nine: "9", ten: "10", eleven: "11", twelve: "12", twenty: "20", thirty: "30", fifty: "50", hundred: "100",
};

const ENVIRONMENTS = new Set(["prod", "production", "staging", "stage", "dev", "development", "qa", "sandbox", "preview", "local"]);
const ENV_CANON: Readonly<Record<string, string>> = { production: "prod", stage: "staging", development: "dev" };

/** Configuration / lifecycle statuses: a current-state claim. */
const CONFIG_STATUSES = new Set([
  "enabled", "disabled", "deprecated", "active", "inactive", "retired", "frozen", "unfrozen", "healthy", "degraded",
  "experimental", "stable", "beta", "ga", "archived", "paused", "mandatory", "optional", "allowed", "forbidden",
]);

/** Run statuses: with a CI / PR / run context they make a memory ephemeral execution state. */
const RUN_STATUSES = new Set([
  "failing", "failed", "fails", "passing", "passed", "passes", "green", "red", "pending", "queued", "running",
  "flaky", "broken", "blocked", "cancelled", "canceled", "succeeded", "successful", "timed", "stuck", "progress",
  "merged", "approved", "rejected", "waiting", "retrying", "erroring", "rolling", "draft",
]);

const RUN_CONTEXT = new Set([
  "ci", "pipeline", "build", "job", "workflow", "pr", "mr", "pull", "check", "checks", "run", "test", "tests",
  "rollout", "canary", "deploy", "nightly", "e2e", "lint",
]);

/** Negators: an odd word out in an otherwise identical sentence flips what it claims. */
const NEGATORS = new Set(["not", "no", "never", "none", "cannot", "nothing", "neither", "nor", "without"]);

/** Connectives after which the next value is a previous one: "up from 5", "instead of MySQL". */
const PRIOR_PAIRS: Readonly<Record<string, string>> = { up: "from", down: "from", instead: "of", rather: "than", place: "of" };
const PRIOR_WORDS = new Set(["previously", "formerly", "replacing", "replaced", "replaces"]);

/** Words that announce a change, not a subject or an attribute ("was raised to 500"). */
const CHANGE_WORDS = new Set([
  "raised", "lowered", "increased", "decreased", "bumped", "reduced", "upgraded", "downgraded", "migrated", "moved",
  "up", "down", "instead", "rather", "place", "previously", "formerly", "replacing", "replaced", "replaces", "since",
  "changed", "switched",
]);

/**
 * Grades: the closed class of scale words that name a tier or a size ("the large model tier", "the pro
 * plan"). This is the one word list among the value shapes; text without these words is unaffected.
 */
const GRADES = new Set([
  "nano", "micro", "mini", "tiny", "small", "medium", "large", "xlarge", "huge", "low", "mid", "high",
  "basic", "standard", "premium", "pro", "enterprise", "free", "bronze", "silver", "gold", "platinum",
]);

/** Collective nouns whose modifier names an organizational unit ("the payments team"): an owner value. */
const UNIT_NOUNS = new Set(["team", "squad", "crew", "guild"]);

const DETERMINERS = new Set(["the", "a", "an", "our", "this", "that", "its", "their"]);

const VERSION_RE = /^v?\d+(?:\.\d+)+$|^v\d+$/;
const NUMBERISH_RE = /^\$?\d[\d.,]*[a-z%]*$/;
const RUN_REF_RE = /^#\d+$/;
const HANDLE_RE = /^@[a-z0-9][a-z0-9_-]*$/;
const DATE_RE = /^\d{4}-\d{2}-\d{2}(?:t[\d:.]+z?)?$/;
const IPV4_RE = /^\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?$/;
/** Dotted names (`db-3.internal`, `pg.prod.example.com:5432`): at least one dot between word characters. */
const HOST_RE = /^[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)+(?::\d{1,5})?$/;
/** Identifiers mixing letters and digits (`us-east-1`, `gpt-4o`, `m5`): one run of word parts. */
const IDENT_RE = /^[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*$/;
const HAS_DIGIT_RE = /\d/;
const UPPER_START_RE = /^[A-Z]/;
/** CamelCase or ALLCAPS (`BigQuery`, `GCP`): a name even at the start of a sentence. */
const INNER_UPPER_RE = /^[A-Z][A-Za-z0-9]*[A-Z]/;

interface Token {
  /** Edge-trimmed, case preserved. */
  readonly raw: string;
  readonly lower: string;
  /** First token of a sentence (capitalization says nothing there). */
  readonly initial: boolean;
  /** The untrimmed token opened with "(": "(was 5)". */
  readonly opensParen: boolean;
}

/** Split on whitespace and trim edge punctuation; one pass, no backtracking. */
export function rawTokens(text: string): string[] {
  return casedTokens(text).map((t) => t.lower);
}

function casedTokens(text: string): Token[] {
  const out: Token[] = [];
  let start = -1;
  let sentenceStart = true;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    const space = code === 32 || code === 9 || code === 10 || code === 13;
    if (!space && start < 0) start = i;
    else if (space && start >= 0) {
      const piece = text.slice(start, i);
      const raw = trimEdges(piece);
      if (raw.length > 0) out.push({ raw, lower: raw.toLowerCase(), initial: sentenceStart, opensParen: piece.startsWith("(") });
      const last = piece.charAt(piece.length - 1);
      if (raw.length > 0 || last === "." || last === "!" || last === "?") sentenceStart = last === "." || last === "!" || last === "?";
      start = -1;
    }
  }
  return out;
}

const EDGE_LEADING = new Set(["(", "[", "{", "\"", "'", "`", "*", "_", "<"]);
const EDGE_TRAILING = new Set([")", "]", "}", "\"", "'", "`", "*", "_", ">", ",", ".", ";", ":", "!", "?"]);

function trimEdges(token: string): string {
  let a = 0;
  let b = token.length;
  while (a < b && EDGE_LEADING.has(token.charAt(a))) a++;
  while (b > a && EDGE_TRAILING.has(token.charAt(b - 1))) b--;
  let t = token.slice(a, b);
  if (t.endsWith("'s") || t.endsWith("’s")) t = t.slice(0, -2);
  return t;
}

/** Light stemming so "replicas" / "replica" and "failing" / "fail" meet; applied the same way everywhere. */
export function stem(token: string): string {
  const synonym = SYNONYMS[token];
  if (synonym !== undefined) return synonym;
  let t = token;
  // "retries" / "retried" / "retry" meet at "retry".
  if (t.length > 4 && (t.endsWith("ies") || t.endsWith("ied"))) return `${t.slice(0, -3)}y`;
  if (t.length > 5 && t.endsWith("ing")) t = t.slice(0, -3);
  else if (t.length > 4 && t.endsWith("ed")) t = t.slice(0, -2);
  else if (t.length > 3 && t.endsWith("s") && !t.endsWith("ss")) t = t.slice(0, -1);
  // "serves" / "served" / "serving" all meet at "serv".
  if (t.length > 3 && t.endsWith("e")) t = t.slice(0, -1);
  return t;
}

function isEndpoint(token: string): boolean {
  if (token.startsWith("http://") || token.startsWith("https://")) return true;
  return token.length > 1 && token.startsWith("/") && token.charAt(1) !== "/";
}

/** The value a token holds by its shape alone, or undefined for a word. */
function shapeValue(token: Token): ClaimValue | undefined {
  const t = token.lower;
  if (isEndpoint(t)) return { kind: "endpoint", value: t.endsWith("/") && t.length > 1 ? t.slice(0, -1) : t };
  if (DATE_RE.test(t)) return { kind: "date", value: t.slice(0, 10) };
  if (IPV4_RE.test(t)) return { kind: "entity", value: t };
  if (VERSION_RE.test(t)) return { kind: "version", value: t.startsWith("v") ? t.slice(1) : t };
  const numberWord = NUMBER_WORDS[t];
  if (numberWord !== undefined) return { kind: "number", value: numberWord };
  if (NUMBERISH_RE.test(t)) return { kind: "number", value: t.replaceAll(",", "").replace("$", "") };
  if (HANDLE_RE.test(t)) return { kind: "entity", value: t.slice(1) };
  if (HOST_RE.test(t) && !/^[\d.]+$/.test(t)) return { kind: "entity", value: t };
  if (IDENT_RE.test(t) && HAS_DIGIT_RE.test(t)) return { kind: "entity", value: t };
  if (INNER_UPPER_RE.test(token.raw)) return { kind: "entity", value: t };
  if (UPPER_START_RE.test(token.raw) && !token.initial && !STOPWORDS.has(t)) return { kind: "entity", value: t };
  if (GRADES.has(t)) return { kind: "entity", value: t };
  return undefined;
}

/** Analyze one memory text. Pure and linear in the text length. */
export function analyzeText(text: string): TextAnalysis {
  const tokens = casedTokens(text);
  const subject = new Set<string>();
  const values = new Map<string, ClaimValue>();
  const prior = new Map<string, ClaimValue>();
  const entityOrder: string[] = [];
  const ambiguous: string[] = [];
  const environments = new Set<string>();
  let negations = 0;
  let runStatus = false;
  let runContext = false;
  let runRef = false;
  /** Tokens left during which the next value is a previous one (0: none pending). */
  let priorPending = 0;
  /** A "not" waiting to see whether it negates the claim or a contrasted value ("enabled, not disabled"). */
  let notPending = 0;
  const firstContent = firstContentIndex(tokens);
  const addValue = (v: ClaimValue): void => {
    const key = `${v.kind}\u0000${v.value}`;
    if (priorPending > 0) {
      prior.set(key, v);
      priorPending = 0;
      return;
    }
    if (notPending > 0) {
      notPending = 0;
      // "X, not Y": Y is the value ruled out, the claim itself stays affirmed.
      if ([...values.values()].some((w) => w.kind === v.kind)) {
        negations--;
        prior.set(key, v);
        return;
      }
    }
    values.set(key, v);
    if (v.kind === "entity") entityOrder.push(v.value);
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    const lower = token.lower;
    const prev = tokens[i - 1]?.lower ?? "";
    const next = tokens[i + 1]?.lower ?? "";
    if (priorPending > 0) priorPending--;
    if (notPending > 0) notPending--;
    if (RUN_CONTEXT.has(lower)) runContext = true;
    if (RUN_REF_RE.test(lower)) {
      // A run / PR / build number names which run: part of the subject, never a value.
      runRef = true;
      subject.add(lower);
      continue;
    }
    if (NEGATORS.has(lower) || lower.endsWith("n't") || lower.endsWith("n\u2019t")) {
      negations++;
      notPending = 3;
      continue;
    }
    if (PRIOR_PAIRS[lower] !== undefined && next === PRIOR_PAIRS[lower]) {
      priorPending = 4;
      i++;
      continue;
    }
    if (PRIOR_WORDS.has(lower) || (lower === "was" && token.opensParen)) {
      // "replaced by X" names the new value, "replacing X" the old one.
      priorPending = next === "by" || next === "with" ? 0 : 3;
      if (priorPending === 0) i++;
      continue;
    }
    // "from X to Y", "moved from X": X is the previous value.
    if (lower === "from" && (fromTo(tokens, i) || CHANGE_WORDS.has(prev))) {
      priorPending = 3;
      continue;
    }
    if (ENVIRONMENTS.has(lower)) {
      environments.add(ENV_CANON[lower] ?? lower);
      continue;
    }
    const shaped = shapeValue(token);
    // "The amber-2 service …": a value-shaped word between a sentence-initial determiner and a noun
    // modifies the grammatical subject; it names the subject, not a value of it.
    const subjectModifier = shaped !== undefined && shaped.kind === "entity" && i >= 1 && (tokens[i - 1]?.initial ?? false) &&
      DETERMINERS.has(prev) && isContentWord(tokens[i + 1]);
    if (shaped !== undefined && !subjectModifier) {
      addValue(shaped);
      continue;
    }
    if (subjectModifier) {
      subject.add(lower);
      continue;
    }
    // Owner positions: "<name> owns …", "the <name> team".
    if (((next === "owns" || next === "maintains") && i === firstContent) || UNIT_NOUNS.has(next)) {
      if (!STOPWORDS.has(lower) && lower !== "by" && !token.initial) {
        addValue({ kind: "entity", value: lower });
        continue;
      }
    }
    if (CONFIG_STATUSES.has(lower)) {
      addValue({ kind: "status", value: lower });
      continue;
    }
    if (RUN_STATUSES.has(lower)) {
      runStatus = true;
      addValue({ kind: "status", value: lower });
      continue;
    }
    if (token.initial && UPPER_START_RE.test(token.raw) && !STOPWORDS.has(lower)) {
      // "Priya owns …" or "Billing service version: …": only the other memory can tell.
      ambiguous.push(lower);
      continue;
    }
    if (STOPWORDS.has(lower) || CHANGE_WORDS.has(lower) || lower.length < 2) continue;
    subject.add(stem(lower));
  }
  return {
    subject: [...subject].sort(),
    values: sortValues(values),
    prior: sortValues(prior),
    entityOrder,
    ambiguous,
    polarity: negations > 0 ? "negated" : "affirmed",
    environments: [...environments].sort(),
    ephemeral: runContext && (runStatus || runRef),
  };
}

function sortValues(values: ReadonlyMap<string, ClaimValue>): ClaimValue[] {
  return [...values.values()].sort((x, y) => (x.kind === y.kind ? cmp(x.value, y.value) : cmp(x.kind, y.kind)));
}

function isContentWord(token: Token | undefined): boolean {
  return token !== undefined && !STOPWORDS.has(token.lower) && shapeValue(token) === undefined && /^[a-z]/.test(token.raw);
}

/** "from X to Y" within a few tokens: X is the previous value. */
function fromTo(tokens: readonly Token[], at: number): boolean {
  for (let j = at + 2; j < Math.min(tokens.length, at + 6); j++) if (tokens[j]?.lower === "to") return true;
  return false;
}

function firstContentIndex(tokens: readonly Token[]): number {
  for (let i = 0; i < tokens.length; i++) if (!STOPWORDS.has(tokens[i]?.lower ?? "")) return i;
  return -1;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Jaccard similarity of two sorted unique token lists. */
export function jaccard(a: readonly string[], b: readonly string[]): number {
  if (a.length === 0 && b.length === 0) return 1;
  let i = 0;
  let j = 0;
  let both = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] ?? "";
    const y = b[j] ?? "";
    if (x === y) {
      both++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return both / (a.length + b.length - both);
}

/** True when one sorted token list contains the other: added qualifiers, not a different subject. */
export function isSubsetEither(a: readonly string[], b: readonly string[]): boolean {
  const [small, large] = a.length <= b.length ? [a, b] : [b, a];
  const set = new Set(large);
  for (const t of small) if (!set.has(t)) return false;
  return true;
}
