// A deterministic generator of a realistic engineering memory bank with planted rot (near-duplicates,
// contradictions, expired CI state) among many look-alike facts, plus the ground truth to score against.
import type { RetainItem } from "../client/types.js";

export interface ExampleBankTruth {
  /** Groups of texts that restate one fact (every member but one may be superseded). */
  readonly duplicateGroups: readonly (readonly string[])[];
  /** Groups of texts that disagree about the current state of one subject (never resolved). */
  readonly contradictionGroups: readonly (readonly string[])[];
  /** CI / PR / run-status texts older than 14 days at `now`. */
  readonly expiredEphemera: readonly string[];
  /** CI / PR / run-status texts younger than 14 days at `now`: must stay untouched. */
  readonly freshEphemera: readonly string[];
  /** Texts retained as observations (metadata fact_type=observation): never gardened. */
  readonly observations: readonly string[];
  /** Texts to invalidate right after loading (already-retired rows the gardener must skip). */
  readonly toInvalidate: readonly string[];
  /** How many plain facts share a template with a fact about another subject. */
  readonly lookalikes: number;
}

export interface ExampleBank {
  readonly items: readonly RetainItem[];
  readonly truth: ExampleBankTruth;
}

const NAMED = [
  "billing", "search", "auth", "payments", "notifications", "inventory", "checkout", "gateway", "ledger", "reporting",
  "analytics", "shipping", "catalog", "identity", "email", "scheduler", "recommendations", "pricing", "fraud", "media",
  "uploads", "webhooks", "audit", "metrics", "exports", "imports", "sessions", "profiles", "orders", "refunds",
];
const ADJ = ["amber", "cobalt", "crimson", "dusky", "ember", "frost", "golden", "hazel", "indigo", "jade", "kelp", "lunar", "maple", "nova", "onyx", "pearl", "quartz", "rust", "sage", "teal", "umber", "violet", "willow", "xenon", "yarrow", "zinc"];
const NOUN = ["ledger", "relay", "beacon", "harbor", "signal", "vault", "forge", "atlas", "pulse", "orbit", "prism", "canyon", "delta", "ember", "falcon", "grove", "lattice", "meadow", "nexus", "quarry"];
const PEOPLE = ["Priya", "Marco", "Dana", "Kenji", "Amara", "Lucas", "Sofia", "Tariq", "Mei", "Jonas", "Ines", "Ravi", "Olga", "Theo", "Zara", "Bruno"];
const DATABASES = ["postgres", "mysql", "dynamodb", "redis", "cassandra", "sqlite", "mongodb"];
const PR_TITLES = ["add retry budget", "bump dependencies", "fix flaky pagination test", "migrate config loader", "drop legacy handler", "speed up cold start", "tighten input validation"];
const CI_FAILS = ["the integration tests", "the lint step", "the e2e suite", "the contract tests", "the build step"];

/** mulberry32: a tiny seeded PRNG, so the same seed gives the same bank (the tests' generated banks use it too). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Attribute {
  readonly name: string;
  readonly value: (r: () => number, s: string) => string;
  readonly other: (r: () => number, v: string, s: string) => string;
  readonly base: (s: string, v: string) => string;
  readonly restated: (s: string, v: string) => string;
  readonly changed: (s: string, v: string) => string;
}

const int = (r: () => number, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pickOf = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;
const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

const ATTRIBUTES: readonly Attribute[] = [
  {
    name: "replicas",
    value: (r) => String(int(r, 2, 12)),
    other: (r, v) => String(Number(v) + int(r, 1, 6)),
    base: (s, v) => `The ${s} service runs ${v} replicas.`,
    restated: (s, v) => `We run ${v} replicas of the ${s} service.`,
    changed: (s, v) => `The ${s} service now runs ${v} replicas.`,
  },
  {
    name: "timeout",
    value: (r) => `${int(r, 2, 60)}s`,
    other: (r, v) => `${Number.parseInt(v, 10) + int(r, 5, 30)}s`,
    base: (s, v) => `The ${s} service request timeout is ${v}.`,
    restated: (s, v) => `${cap(s)} service timeout for requests: ${v}.`,
    changed: (s, v) => `The ${s} service request timeout was changed to ${v}.`,
  },
  {
    name: "endpoint",
    value: (r, s) => `/v${int(r, 1, 3)}/${s}`,
    other: (_r, v, s) => `/v${Number.parseInt(v.slice(2), 10) + 1}/${s}`,
    base: (s, v) => `The ${s} endpoint is ${v}.`,
    restated: (s, v) => `Clients call the ${s} endpoint at ${v}.`,
    changed: (s, v) => `The ${s} endpoint moved to ${v}.`,
  },
  {
    name: "owner",
    value: (r) => pickOf(r, PEOPLE),
    other: (r, v) => PEOPLE[(PEOPLE.indexOf(v) + int(r, 1, PEOPLE.length - 1)) % PEOPLE.length] ?? "Dana",
    base: (s, v) => `${v} owns the ${s} service.`,
    restated: (s, v) => `The ${s} service is owned by ${v}.`,
    changed: (s, v) => `${v} owns the ${s} service now.`,
  },
  {
    name: "version",
    value: (r) => `${int(r, 1, 4)}.${int(r, 0, 20)}.${int(r, 0, 9)}`,
    other: (r, v) => {
      const [major, minor] = v.split(".");
      return `${major ?? "1"}.${Number(minor ?? "0") + int(r, 1, 5)}.0`;
    },
    base: (s, v) => `The ${s} service is deployed at version ${v}.`,
    restated: (s, v) => `${cap(s)} service version: ${v}.`,
    changed: (s, v) => `The ${s} service is deployed at version ${v} now.`,
  },
  {
    name: "rate-limit",
    value: (r) => String(int(r, 1, 40) * 50),
    other: (r, v) => String(Number(v) + int(r, 1, 10) * 50),
    base: (s, v) => `The ${s} service rate limit is ${v} requests per second.`,
    restated: (s, v) => `Rate limit on the ${s} service: ${v} requests per second.`,
    changed: (s, v) => `The ${s} service rate limit was raised to ${v} requests per second.`,
  },
  {
    name: "nightly-export",
    value: (r) => (r() < 0.5 ? "enabled" : "disabled"),
    other: (_r, v) => (v === "enabled" ? "disabled" : "enabled"),
    base: (s, v) => `The ${s} nightly export job is ${v}.`,
    restated: (s, v) => `The nightly export job of the ${s} service is ${v}.`,
    changed: (s, v) => `The ${s} nightly export job is ${v} now.`,
  },
];

function subjectName(index: number): string {
  if (index < NAMED.length) return NAMED[index] ?? "billing";
  const k = index - NAMED.length;
  const a = ADJ[k % ADJ.length] ?? "amber";
  const n = NOUN[Math.floor(k / ADJ.length) % NOUN.length] ?? "ledger";
  const round = Math.floor(k / (ADJ.length * NOUN.length));
  return round === 0 ? `${a}-${n}` : `${a}-${n}-${round + 1}`;
}

/**
 * Generate `count` retain items (at least; a subject's facts are emitted together) with planted rot,
 * dated relative to `now`. The same seed, count and now give the same bank.
 */
export function generateExampleBank(seed: number, count: number, now: string): ExampleBank {
  const r = prng(seed);
  const nowMs = Date.parse(now);
  if (Number.isNaN(nowMs)) throw new RangeError(`now: "${now}" is not an ISO-8601 date`);
  const daysAgo = (d: number, hours = 0): string => new Date(nowMs - d * 86_400_000 - hours * 3_600_000).toISOString();
  const items: RetainItem[] = [];
  const duplicateGroups: string[][] = [];
  const contradictionGroups: string[][] = [];
  const expiredEphemera: string[] = [];
  const freshEphemera: string[] = [];
  const observations: string[] = [];
  const toInvalidate: string[] = [];
  let lookalikes = 0;
  let run = 4000;
  let pr = 300;
  const push = (content: string, timestamp: string, entity: string, extra: Partial<RetainItem> = {}): void => {
    items.push({ content, timestamp, context: extra.context ?? "engineering notes", entities: [{ text: entity }], tags: ["eng"], ...extra });
  };
  for (let index = 0; items.length < count; index++) {
    const s = subjectName(index);
    const entity = `${s}-service`;
    const attrs = ATTRIBUTES.filter((a) => r() < 0.75 || (s === "auth" && a.name === "endpoint"));
    for (const attr of attrs) {
      // The canonical dispute: /v1/auth vs /v2/auth.
      const canonical = s === "auth" && attr.name === "endpoint";
      const value = canonical ? "/v1/auth" : attr.value(r, s);
      const text = attr.base(s, value);
      push(text, daysAgo(int(r, 30, 300), int(r, 0, 23)), entity);
      if (index > 0) lookalikes++;
      const roll = r();
      if (canonical || (roll >= 0.1 && roll < 0.16)) {
        const changed = attr.changed(s, canonical ? "/v2/auth" : attr.other(r, value, s));
        push(changed, daysAgo(int(r, 5, 25)), entity);
        contradictionGroups.push([text, changed]);
      } else if (roll < 0.1) {
        const restated = attr.restated(s, value);
        push(restated, daysAgo(int(r, 20, 29)), entity);
        duplicateGroups.push([text, restated]);
      } else if (roll < 0.2) {
        // An older claim someone already retired: invalidated rows are never gardened.
        const retired = `${attr.base(s, attr.other(r, value, s)).slice(0, -1)} (before the ${int(r, 2019, 2024)} migration).`;
        push(retired, daysAgo(int(r, 301, 400)), entity);
        toInvalidate.push(retired);
      }
    }
    // Traps: a staging claim next to the production one (neither a duplicate nor a dispute), and the
    // previous subject's fact restated about this one (a look-alike with the same value).
    if (r() < 0.25) {
      push(`The ${s} service runs ${int(r, 1, 3)} replicas in staging.`, daysAgo(int(r, 30, 300)), entity);
      lookalikes++;
    }
    if (index > 0 && r() < 0.25) {
      push(`We run ${int(r, 2, 12)} replicas of the ${s} service in production.`, daysAgo(int(r, 30, 300)), entity);
      lookalikes++;
    }
    // Durable facts that mention CI but are not run state, and the database look-alikes.
    push(`The ${s} service stores its data in ${pickOf(r, DATABASES)}.`, daysAgo(int(r, 30, 300)), entity);
    if (r() < 0.5) push(`The ${s} service CI pipeline uses ${int(r, 2, 8)} parallel runners.`, daysAgo(int(r, 30, 300)), entity);
    // Ephemeral run state: some expired, some fresh.
    const ephemeral = int(r, 1, 2);
    for (let e = 0; e < ephemeral; e++) {
      run += int(r, 1, 40);
      pr += int(r, 1, 5);
      const expired = r() < 0.55;
      const age = expired ? int(r, 15, 120) : int(r, 0, 13);
      const text = r() < 0.5
        ? `CI run #${run} for PR #${pr} (${s}: ${pickOf(r, PR_TITLES)}) is failing on ${pickOf(r, CI_FAILS)}.`
        : `The deploy pipeline for ${s} is blocked: build #${run} is queued behind PR #${pr}.`;
      push(text, daysAgo(age, int(r, 0, 23)), entity, { context: "ci status", tags: ["eng", "ci"] });
      (expired ? expiredEphemera : freshEphemera).push(text);
    }
    if (r() < 0.2) {
      const text = `Observation: the ${s} service is usually run with a handful of replicas and rarely changes owner.`;
      push(text, daysAgo(int(r, 1, 60)), entity, { metadata: { fact_type: "observation" } });
      observations.push(text);
    }
    if (r() < 0.3) {
      const person = pickOf(r, PEOPLE);
      push(`${person} prefers squash merges for the ${s} repository.`, daysAgo(int(r, 30, 300)), `${person.toLowerCase()}`, { context: "preferences" });
    }
  }
  return { items, truth: { duplicateGroups, contradictionGroups, expiredEphemera, freshEphemera, observations, toInvalidate, lookalikes } };
}
