// Turns a memory's text into what the clustering compares: subject tokens (what the claim is about),
// typed values (endpoints, versions, numbers, statuses, owners) and whether it is ephemeral run state.
// Tokenizing is a single linear scan; the only regexes are anchored, unnested single-token checks.

export type ValueKind = "endpoint" | "version" | "number" | "status" | "owner";

export interface ClaimValue {
  readonly kind: ValueKind;
  readonly value: string;
}

export interface TextAnalysis {
  /** Subject tokens: stemmed content words with values, stopwords and filler removed (sorted, unique). */
  readonly subject: readonly string[];
  /** Claim values, sorted by kind then value, unique. */
  readonly values: readonly ClaimValue[];
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

const OWNER_AFTER = new Set(["by", "is", "owner", "oncall", "on-call", ":"]);

const VERSION_RE = /^v?\d+(?:\.\d+)+$|^v\d+$/;
const NUMBERISH_RE = /^\d[\d.,]*[a-z%]*$/;
const RUN_REF_RE = /^#\d+$/;
const HANDLE_RE = /^@[a-z0-9][a-z0-9_-]*$/;

/** Split on whitespace and trim edge punctuation; one pass, no backtracking. */
export function rawTokens(text: string): string[] {
  const out: string[] = [];
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const code = i < text.length ? text.charCodeAt(i) : 32;
    const space = code === 32 || code === 9 || code === 10 || code === 13;
    if (!space && start < 0) start = i;
    else if (space && start >= 0) {
      const token = trimEdges(text.slice(start, i).toLowerCase());
      if (token.length > 0) out.push(token);
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
  if (t.endsWith("'s")) t = t.slice(0, -2);
  return t;
}

/** Light stemming so "replicas" / "replica" and "failing" / "fail" meet; applied the same way everywhere. */
export function stem(token: string): string {
  const synonym = SYNONYMS[token];
  if (synonym !== undefined) return synonym;
  if (token.length > 4 && token.endsWith("ies")) return `${token.slice(0, -3)}y`;
  if (token.length > 5 && token.endsWith("ing")) return token.slice(0, -3);
  if (token.length > 4 && token.endsWith("ed")) return token.slice(0, -2);
  if (token.length > 3 && token.endsWith("s") && !token.endsWith("ss")) return token.slice(0, -1);
  return token;
}

function isEndpoint(token: string): boolean {
  if (token.startsWith("http://") || token.startsWith("https://")) return true;
  return token.length > 1 && token.startsWith("/") && token.charAt(1) !== "/";
}

/** Analyze one memory text. Pure and linear in the text length. */
export function analyzeText(text: string): TextAnalysis {
  const tokens = rawTokens(text);
  const subject = new Set<string>();
  const values = new Map<string, ClaimValue>();
  const environments = new Set<string>();
  let runStatus = false;
  let runContext = false;
  let runRef = false;
  const addValue = (kind: ValueKind, value: string): void => {
    values.set(`${kind}\u0000${value}`, { kind, value });
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] ?? "";
    const prev = i > 0 ? (tokens[i - 1] ?? "") : "";
    const next = tokens[i + 1] ?? "";
    if (RUN_REF_RE.test(token)) {
      runRef = true;
      continue;
    }
    if (isEndpoint(token)) {
      addValue("endpoint", token.endsWith("/") && token.length > 1 ? token.slice(0, -1) : token);
      continue;
    }
    if (VERSION_RE.test(token)) {
      addValue("version", token.startsWith("v") ? token.slice(1) : token);
      continue;
    }
    const numberWord = NUMBER_WORDS[token];
    if (numberWord !== undefined) {
      addValue("number", numberWord);
      continue;
    }
    if (NUMBERISH_RE.test(token)) {
      addValue("number", token.replaceAll(",", ""));
      continue;
    }
    if (HANDLE_RE.test(token)) {
      addValue("owner", token.slice(1));
      continue;
    }
    // Owner positions: "<name> owns …", "owned by <name>", "owner is <name>", "on-call: <name>".
    if ((prev === "by" && (tokens[i - 2] === "owned" || tokens[i - 2] === "maintained")) ||
      (OWNER_AFTER.has(prev) && (tokens[i - 2] === "owner" || tokens[i - 2] === "on-call" || prev === "owner" || prev === "on-call")) ||
      ((next === "owns" || next === "maintains") && i === firstContentIndex(tokens))) {
      if (!STOPWORDS.has(token) && token !== "is" && token !== "by") {
        addValue("owner", token);
        continue;
      }
    }
    if (CONFIG_STATUSES.has(token)) {
      addValue("status", token);
      continue;
    }
    if (RUN_STATUSES.has(token)) {
      runStatus = true;
      addValue("status", token);
      continue;
    }
    if (ENVIRONMENTS.has(token)) {
      environments.add(ENV_CANON[token] ?? token);
      continue;
    }
    if (RUN_CONTEXT.has(token)) runContext = true;
    if (STOPWORDS.has(token) || token.length < 2) continue;
    if (token === "by" || token === "on-call") continue;
    subject.add(stem(token));
  }
  return {
    subject: [...subject].sort(),
    values: [...values.values()].sort((x, y) => (x.kind === y.kind ? cmp(x.value, y.value) : cmp(x.kind, y.kind))),
    environments: [...environments].sort(),
    ephemeral: runContext && (runStatus || runRef),
  };
}

function firstContentIndex(tokens: readonly string[]): number {
  for (let i = 0; i < tokens.length; i++) if (!STOPWORDS.has(tokens[i] ?? "")) return i;
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
