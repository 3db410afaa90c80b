// A deterministic generator of a claim-heavy bank: contradiction pairs and near-duplicate pairs hidden
// among look-alikes (the same frame about another subject), over many sentence frames with varied
// phrasing. Frames come in two sets: DEV_FRAMES (the claim model was developed against them) and
// HELD_OUT_FRAMES (written before the model was tuned, never used to tune it).
import type { RetainItem } from "@context-fold/memory-gardener-client";
import { prng } from "../../src/gardener/example-bank.js";

export interface Frame {
  readonly name: string;
  /** A value for subject `s`. */
  readonly value: (r: () => number, s: string) => string;
  /** A value different from `v`. */
  readonly other: (r: () => number, v: string, s: string) => string;
  /** Ways to state "the s's attribute is v" (any two are a restatement of each other). */
  readonly states: readonly ((s: string, v: string) => string)[];
  /** Ways to state a claim that disagrees with `states(s, v)`: `w` is `other(v)`. */
  readonly disputes: readonly ((s: string, v: string, w: string) => string)[];
}

export interface ClaimBank {
  readonly items: readonly RetainItem[];
  readonly contradictions: readonly (readonly [string, string])[];
  readonly duplicates: readonly (readonly [string, string])[];
  readonly lookalikes: readonly string[];
  /** The frame each text was generated from. */
  readonly frameOf: ReadonlyMap<string, string>;
}

const int = (r: () => number, lo: number, hi: number): number => lo + Math.floor(r() * (hi - lo + 1));
const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;
const otherOf = <T>(r: () => number, list: readonly T[], v: T): T => {
  const rest = list.filter((x) => x !== v);
  return pick(r, rest);
};

const PEOPLE = ["Priya", "Marco", "Dana", "Kenji", "Amara", "Lucas", "Sofia", "Tariq", "Mei", "Jonas", "Ines", "Ravi", "Olga", "Theo", "Zara", "Bruno"];
const REGIONS = ["us-east-1", "us-west-2", "eu-west-1", "eu-central-1", "ap-southeast-2", "ap-northeast-1", "sa-east-1"];
const DATABASES = ["Postgres", "MySQL", "DynamoDB", "Cassandra", "CockroachDB", "MongoDB", "Spanner"];
const TIERS = ["small", "medium", "large"];
const TEAMS = ["platform", "growth", "infra", "data", "mobile", "core", "reliability", "commerce"];
const ALERTING = ["PagerDuty", "Opsgenie", "Slack", "VictorOps", "Datadog"];
const HANDLES = ["priya", "marco", "dana", "kenji", "amara", "lucas", "sofia", "tariq"];
const word = (n: number): string => ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"][n] ?? String(n);

export const DEV_FRAMES: readonly Frame[] = [
  {
    name: "name",
    value: (r) => pick(r, PEOPLE),
    other: (r, v) => otherOf(r, PEOPLE, v),
    states: [
      (s, v) => `${v} is the on-call engineer for the ${s} service.`,
      (s, v) => `The on-call engineer for the ${s} service is ${v}.`,
      (s, v) => `On-call engineer of the ${s} service: ${v}.`,
    ],
    disputes: [
      (s, _v, w) => `The on-call engineer for the ${s} service is now ${w}.`,
      (s, _v, w) => `${w} took over as the on-call engineer for the ${s} service.`,
    ],
  },
  {
    name: "region",
    value: (r) => pick(r, REGIONS),
    other: (r, v) => otherOf(r, REGIONS, v),
    states: [
      (s, v) => `The ${s} service is deployed in ${v}.`,
      (s, v) => `We deploy the ${s} service to ${v}.`,
      (s, v) => `The ${s} service is deployed in the ${v} region.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} service is deployed in ${w} now.`,
      (s, v, w) => `The ${s} service was deployed to ${w}, moved from ${v}.`,
    ],
  },
  {
    name: "product",
    value: (r) => pick(r, DATABASES),
    other: (r, v) => otherOf(r, DATABASES, v),
    states: [
      (s, v) => `The ${s} service database is ${v}.`,
      (s, v) => `The database behind the ${s} service is ${v}.`,
      (s, v) => `For the ${s} service, the database is ${v}.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} service database is ${w} today.`,
      (s, _v, w) => `The ${s} service database was migrated to ${w}.`,
    ],
  },
  {
    name: "version",
    value: (r) => `${int(r, 1, 4)}.${int(r, 0, 20)}.${int(r, 0, 9)}`,
    other: (r, v) => {
      const [major, minor] = v.split(".");
      return `${major ?? "1"}.${Number(minor ?? "0") + int(r, 1, 5)}.0`;
    },
    states: [
      (s, v) => `The ${s} service is pinned to version ${v}.`,
      (s, v) => `Version of the ${s} service: v${v}.`,
      (s, v) => `We pin the ${s} service at ${v}.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} service was upgraded to version ${w}.`,
      (s, v, w) => `The ${s} service is pinned to ${w} (was ${v}).`,
    ],
  },
  {
    name: "tier",
    value: (r) => pick(r, TIERS),
    other: (r, v) => otherOf(r, TIERS, v),
    states: [
      (s, v) => `The ${s} summarizer uses the ${v} model tier.`,
      (s, v) => `For the ${s} summarizer we use the ${v} model tier.`,
      (s, v) => `The ${s} summarizer: ${v} model tier.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} summarizer now uses the ${w} model tier.`,
      (s, v, w) => `The ${s} summarizer uses the ${w} model tier instead of the ${v} one.`,
    ],
  },
  {
    name: "host",
    value: (r) => `${pick(r, ["pg", "db", "mysql", "store"])}-${int(r, 1, 9)}.${pick(r, ["internal", "prod.internal", "corp.example.com"])}`,
    other: (r, v) => `${v.split("-")[0] ?? "db"}-${int(r, 10, 40)}.internal`,
    states: [
      (s, v) => `The ${s} service database host is ${v}.`,
      (s, v) => `Database host for the ${s} service: ${v}.`,
      (s, v) => `The ${s} service connects to the database host ${v}.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} service database host moved to ${w}.`,
      (s, v, w) => `The ${s} service database host is ${w} rather than ${v}.`,
    ],
  },
  {
    name: "owner",
    value: (r) => pick(r, TEAMS),
    other: (r, v) => otherOf(r, TEAMS, v),
    states: [
      (s, v) => `The ${s} service is owned by the ${v} team.`,
      (s, v) => `The ${v} team owns the ${s} service.`,
      (s, v) => `Owner of the ${s} service: the ${v} team.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} service is now owned by the ${w} team.`,
      (s, _v, w) => `Ownership of the ${s} service moved to the ${w} team.`,
    ],
  },
  {
    name: "number",
    value: (r) => String(int(r, 2, 9)),
    other: (r, v) => String(Number(v) + int(r, 1, 6)),
    states: [
      (s, v) => `The ${s} service runs ${v} replicas.`,
      (s, v) => `We run ${word(Number(v))} replicas of the ${s} service.`,
      (s, v) => `Replicas of the ${s} service: ${v}.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} service was scaled to ${w} replicas.`,
      (s, _v, w) => `The ${s} service runs ${w} replicas today.`,
    ],
  },
  {
    name: "negation",
    value: () => "enabled",
    other: () => "enabled",
    states: [
      (s, v) => `The ${s} nightly export job is ${v}.`,
      (s, v) => `The nightly export job of the ${s} service is ${v}.`,
      (s, v) => `For ${s}, the nightly export job is ${v}.`,
    ],
    disputes: [
      (s, v) => `The ${s} nightly export job is not ${v}.`,
      (s, v) => `The nightly export job of the ${s} service isn't ${v} anymore.`,
    ],
  },
  {
    name: "no-longer",
    value: (r, s) => `/v${int(r, 1, 3)}/${s}`,
    other: (_r, v) => v,
    states: [
      (s, v) => `The ${s} service serves ${v}.`,
      (s, v) => `${v} is served by the ${s} service.`,
      (s, v) => `The ${s} service still serves traffic on ${v}.`,
    ],
    disputes: [
      (s, v) => `The ${s} service no longer serves ${v}.`,
      (s, v) => `${v} is no longer served by the ${s} service.`,
    ],
  },
  {
    name: "now-up-from",
    value: (r) => String(int(r, 2, 40) * 50),
    other: (r, v) => String(Number(v) + int(r, 1, 10) * 50),
    states: [
      (s, v) => `The ${s} service rate limit is ${v} requests per second.`,
      (s, v) => `Rate limit on the ${s} service: ${v} requests per second.`,
      (s, v) => `The ${s} service has a rate limit of ${v} requests per second.`,
    ],
    disputes: [
      (s, v, w) => `The ${s} service rate limit is now ${w} requests per second, up from ${v}.`,
      (s, v, w) => `The ${s} service now has a rate limit of ${w} requests per second (up from ${v}).`,
    ],
  },
  {
    name: "instead-of",
    value: (r) => pick(r, ALERTING),
    other: (r, v) => otherOf(r, ALERTING, v),
    states: [
      (s, v) => `The ${s} service routes its alerts to ${v}.`,
      (s, v) => `Alerts from the ${s} service are routed to ${v}.`,
      (s, v) => `${v} is where the ${s} service routes its alerts.`,
    ],
    disputes: [
      (s, v, w) => `The ${s} service routes its alerts to ${w} instead of ${v}.`,
      (s, v, w) => `Alerts from the ${s} service are now routed to ${w} rather than ${v}.`,
    ],
  },
];

/** Written before the claim model was tuned; never used to tune it. */
export const HELD_OUT_FRAMES: readonly Frame[] = [
  {
    name: "port",
    value: (r) => String(int(r, 80, 90) * 100 + int(r, 0, 99)),
    other: (r, v) => String(Number(v) + int(r, 1, 50)),
    states: [
      (s, v) => `The ${s} service listens on port ${v}.`,
      (s, v) => `Port ${v} is where the ${s} service listens.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} service listens on port ${w} now.`,
      (s, v, w) => `The ${s} service listens on port ${w} instead of ${v}.`,
    ],
  },
  {
    name: "date",
    value: (r) => `2026-12-${String(int(r, 10, 20)).padStart(2, "0")}`,
    other: (r) => `2027-01-${String(int(r, 4, 15)).padStart(2, "0")}`,
    states: [
      (s, v) => `The ${s} code freeze starts on ${v}.`,
      (s, v) => `Code freeze for ${s} starts ${v}.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} code freeze starts on ${w}.`,
      (s, v, w) => `The ${s} code freeze was pushed from ${v} to ${w}.`,
    ],
  },
  {
    name: "handle",
    value: (r) => pick(r, HANDLES),
    other: (r, v) => otherOf(r, HANDLES, v),
    states: [
      (s, v) => `Questions about the ${s} pipeline go to @${v}.`,
      (s, v) => `Send questions about the ${s} pipeline to @${v}.`,
    ],
    disputes: [
      (s, _v, w) => `Questions about the ${s} pipeline go to @${w} these days.`,
      (s, v, w) => `Questions about the ${s} pipeline go to @${w}, not @${v}.`,
    ],
  },
  {
    name: "base-url",
    value: (r, s) => `https://${s}.${pick(r, ["example.com", "corp.example.net"])}/v${int(r, 1, 3)}`,
    other: (_r, v) => `${v.slice(0, -1)}${Number(v.slice(-1)) + 1}`,
    states: [
      (s, v) => `The ${s} client base URL is ${v}.`,
      (s, v) => `Base URL of the ${s} client: ${v}.`,
    ],
    disputes: [
      (s, _v, w) => `The ${s} client base URL changed to ${w}.`,
      (s, _v, w) => `The ${s} client base URL is ${w} now.`,
    ],
  },
  {
    name: "approver",
    value: (r) => pick(r, PEOPLE),
    other: (r, v) => otherOf(r, PEOPLE, v),
    states: [
      (s, v) => `Deploys of the ${s} service need approval from ${v}.`,
      (s, v) => `${v} approves deploys of the ${s} service.`,
    ],
    disputes: [
      (s, _v, w) => `Deploys of the ${s} service need approval from ${w} now.`,
      (s, v, w) => `Deploys of the ${s} service need approval from ${w} instead of ${v}.`,
    ],
  },
  {
    name: "retry-negation",
    value: () => "",
    other: () => "",
    states: [
      (s) => `The ${s} webhook dispatcher retries failed deliveries.`,
      (s) => `Failed deliveries are retried by the ${s} webhook dispatcher.`,
    ],
    disputes: [
      (s) => `The ${s} webhook dispatcher does not retry failed deliveries.`,
      (s) => `The ${s} webhook dispatcher never retries failed deliveries.`,
    ],
  },
];

const ADJ = ["amber", "cobalt", "crimson", "dusky", "ember", "frost", "golden", "hazel", "indigo", "jade", "kelp", "lunar", "maple", "nova", "onyx", "pearl", "quartz", "rust", "sage", "teal", "umber", "violet", "willow", "xenon", "yarrow", "zinc"];
const NOUN = ["ledger", "relay", "beacon", "harbor", "signal", "vault", "forge", "atlas", "pulse", "orbit", "prism", "canyon", "delta", "falcon", "grove", "lattice", "meadow", "nexus", "quarry", "tundra"];

/** Every subject name, lower-case compounds, no digits. */
function subjects(): string[] {
  const out: string[] = [];
  for (const a of ADJ) for (const n of NOUN) out.push(`${a}-${n}`);
  return out;
}

export interface ClaimBankOptions {
  readonly frames: readonly Frame[];
  readonly contradictions: number;
  readonly duplicates: number;
  readonly lookalikes: number;
  readonly now: string;
}

/** Build the bank: each (frame, subject) is used once, so the only pairs are the planted ones. */
export function generateClaimBank(seed: number, options: ClaimBankOptions): ClaimBank {
  const r = prng(seed);
  const nowMs = Date.parse(options.now);
  const daysAgo = (d: number): string => new Date(nowMs - d * 86_400_000 - int(r, 0, 86_399) * 1000).toISOString();
  const pool = subjects();
  const next = new Map<string, number>();
  const subjectFor = (frame: Frame): string => {
    // Each frame walks the pool from its own offset: subjects repeat across frames, never within one.
    const offset = (options.frames.indexOf(frame) * 97) % pool.length;
    const k = next.get(frame.name) ?? 0;
    next.set(frame.name, k + 1);
    if (k >= pool.length) throw new Error(`frame ${frame.name}: out of subjects`);
    return pool[(offset + k) % pool.length] as string;
  };
  const items: RetainItem[] = [];
  const frameOf = new Map<string, string>();
  const push = (text: string, frame: Frame, subject: string, age: number): void => {
    if (frameOf.has(text)) throw new Error(`duplicate text: ${text}`);
    frameOf.set(text, frame.name);
    items.push({ content: text, timestamp: daysAgo(age), context: "engineering notes", entities: [{ text: subject }], tags: ["eng"] });
  };
  const contradictions: [string, string][] = [];
  const duplicates: [string, string][] = [];
  const lookalikes: string[] = [];
  const frames = options.frames;
  for (let i = 0; i < options.contradictions; i++) {
    const frame = frames[i % frames.length] as Frame;
    const s = subjectFor(frame);
    const v = frame.value(r, s);
    const a = (frame.states[int(r, 0, frame.states.length - 1)] as Frame["states"][number])(s, v);
    const b = (frame.disputes[int(r, 0, frame.disputes.length - 1)] as Frame["disputes"][number])(s, v, frame.other(r, v, s));
    // Either member may be the newer one: the gardener must not care.
    const [ageA, ageB] = r() < 0.5 ? [int(r, 120, 300), int(r, 5, 60)] : [int(r, 5, 60), int(r, 120, 300)];
    push(a, frame, s, ageA);
    push(b, frame, s, ageB);
    contradictions.push([a, b]);
  }
  for (let i = 0; i < options.duplicates; i++) {
    const frame = frames[(i * 7 + 3) % frames.length] as Frame;
    const s = subjectFor(frame);
    const v = frame.value(r, s);
    const first = int(r, 0, frame.states.length - 1);
    const second = (first + int(r, 1, frame.states.length - 1)) % frame.states.length;
    const a = (frame.states[first] as Frame["states"][number])(s, v);
    const b = (frame.states[second] as Frame["states"][number])(s, v);
    push(a, frame, s, int(r, 60, 300));
    push(b, frame, s, int(r, 5, 59));
    duplicates.push([a, b]);
  }
  for (let i = 0; i < options.lookalikes; i++) {
    const frame = frames[int(r, 0, frames.length - 1)] as Frame;
    const s = subjectFor(frame);
    // Half the look-alikes state a dispute-shaped sentence: it has no partner about the same subject.
    const text = r() < 0.75
      ? (frame.states[int(r, 0, frame.states.length - 1)] as Frame["states"][number])(s, frame.value(r, s))
      : (frame.disputes[int(r, 0, frame.disputes.length - 1)] as Frame["disputes"][number])(s, frame.value(r, s), frame.other(r, frame.value(r, s), s));
    push(text, frame, s, int(r, 1, 300));
    lookalikes.push(text);
  }
  // Interleave deterministically so planted pairs are not adjacent in the bank.
  const order = items.map((_, i) => ({ i, k: r() })).sort((x, y) => x.k - y.k || x.i - y.i);
  return { items: order.map((o) => items[o.i] as RetainItem), contradictions, duplicates, lookalikes, frameOf };
}
