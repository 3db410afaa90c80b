// The HTTP face of the local bank (node:http, loopback only): the Hindsight API subset the gardener
// uses, answering with the real server's shapes and status codes, plus test-only admin routes.
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import { BankStore, type ListFilter, type PatchInput, type RetainInput, type TagsMatch } from "./bank-store.js";
import type { FileSystem } from "@context-fold/durable-fs";
import { LocalBankOptionError } from "./errors.js";
import type { StorageDamage } from "./journal.js";
import { FAULT_HEADER, FaultState, type FaultController, type FaultPlan } from "./faults.js";
import { hasWordCharacter, rankLexically } from "./lexical-recall.js";
import type { StoredFactType, StoredMemory } from "./records.js";
import { Checker, RequestInvalid, isUuid, normalizeTimestamp, parseJsonBody } from "./request-validation.js";
import { FEATURES, bankProfile, documentResponse, getItem, listItem, recallResult, reflectFact, reflectText } from "./wire-shapes.js";

export interface LocalBankOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Loopback only: 127.0.0.1 (default) or ::1. */
  readonly host?: "127.0.0.1" | "::1";
  /** Where the journal and snapshot live; omitted = in memory only. */
  readonly dataDir?: string;
  /** Fault plan at start; the in-process controller (`bank.faults`) always works. */
  readonly faults?: FaultPlan;
  /** Serve the fault routes over HTTP (`PUT /_local/faults`, the fault header). Tests only; default false. */
  readonly faultRoutes?: boolean;
  /** Largest request body accepted (default 10 MB); larger → 413. */
  readonly maxBodyBytes?: number;
  /** Largest retained item (its JSON, default 1 MB); larger → 422. */
  readonly maxItemBytes?: number;
  /** The file layer under the journal (tests inject faults through it). */
  readonly fileSystem?: FileSystem;
  /** api_version to report; below 0.8.2 PATCH answers 405 like those servers. Default "0.9.1". */
  readonly version?: string;
  /** When set, /v1 routes need `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
  /** The clock for retain/patch timestamps (tests pin it). */
  readonly now?: () => Date;
}

export interface LocalBank {
  readonly url: string;
  readonly port: number;
  readonly faults: FaultController;
  /** Bytes of a torn journal tail dropped on start (0 when the journal ended cleanly). */
  readonly tornBytesDropped: number;
  /** Damage the start found in the journal or snapshot; every intact record was kept. */
  readonly damage: readonly StorageDamage[];
  /** Other things the start has to say (old formats loaded unchecked, copies of damaged files kept). */
  readonly notices: readonly string[];
  /** Stops serving and writes a snapshot; rejects with SnapshotFailedError when it cannot (nothing is lost). */
  close(): Promise<void>;
}

export const DEFAULT_API_VERSION = "0.9.1";
export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_ITEM_BYTES = 1024 * 1024;
const FACT_TYPES: readonly StoredFactType[] = ["world", "experience", "observation"];
const TAGS_MATCH: readonly TagsMatch[] = ["any", "all", "any_strict", "all_strict", "exact"];

/** true when `version` is at least `min` (dotted numeric; pre-release suffixes ignored). */
export function versionAtLeast(version: string, min: string): boolean {
  const parse = (v: string): number[] => v.split(/[.+-]/).slice(0, 3).map((p) => Number.parseInt(p, 10) || 0);
  const a = parse(version);
  const b = parse(min);
  for (let i = 0; i < 3; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}

class HttpAnswer extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, detail: unknown) {
    super(typeof detail === "string" ? detail : `HTTP ${status}`);
    this.status = status;
    this.body = { detail };
  }
}

function tooLarge(limit: number): HttpAnswer {
  return new HttpAnswer(413, `Request body too large: the limit is ${String(limit)} bytes`);
}

/** Reads the body, refusing (413, nothing more buffered) as soon as it passes `limit`. */
function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!refused) resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", reject);
  });
}

/** `host:port` forms a loopback client sends; a DNS-rebinding page sends its own name instead. */
function allowedHosts(host: string, port: number): Set<string> {
  const p = String(port);
  const names = new Set([`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`]);
  names.add(host.includes(":") ? `[${host}]:${p}` : `${host}:${p}`);
  return names;
}

/** application/json, with parameters (charset) allowed. */
function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(";")[0]?.trim().toLowerCase();
  return type === "application/json";
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}

type Route =
  | { kind: "health" }
  | { kind: "version" }
  | { kind: "banks" }
  | { kind: "bank"; bankId: string }
  | { kind: "list"; bankId: string }
  | { kind: "memory"; bankId: string; memoryId: string }
  | { kind: "recall"; bankId: string }
  | { kind: "retain"; bankId: string }
  | { kind: "reflect"; bankId: string }
  | { kind: "document"; bankId: string; documentId: string }
  | { kind: "admin-faults" }
  | { kind: "admin-stats" };

const METHODS: Record<Route["kind"], readonly string[]> = {
  health: ["GET"],
  version: ["GET"],
  banks: ["GET"],
  bank: ["GET", "PUT"],
  list: ["GET"],
  memory: ["GET", "PATCH"],
  recall: ["POST"],
  retain: ["POST"],
  reflect: ["POST"],
  document: ["GET"],
  "admin-faults": ["GET", "PUT"],
  "admin-stats": ["GET"],
};

function route(pathname: string): Route | null {
  const parts = pathname.split("/").slice(1);
  let decoded: string[];
  try {
    decoded = parts.map((p) => decodeURIComponent(p));
  } catch {
    return null;
  }
  const [a, b, c, d, bankId, e, f, g] = decoded;
  if (decoded.length === 1 && a === "health") return { kind: "health" };
  if (decoded.length === 1 && a === "version") return { kind: "version" };
  if (decoded.length === 2 && a === "_local" && b === "faults") return { kind: "admin-faults" };
  if (decoded.length === 2 && a === "_local" && b === "stats") return { kind: "admin-stats" };
  if (a !== "v1" || b !== "default" || c !== "banks") return null;
  if (decoded.length === 3) return { kind: "banks" };
  if (d === undefined || d === "") return null;
  if (decoded.length === 4) return { kind: "bank", bankId: d };
  if (decoded.length === 5 && bankId === "reflect") return { kind: "reflect", bankId: d };
  if (decoded.length === 6 && bankId === "documents" && e !== undefined && e !== "") return { kind: "document", bankId: d, documentId: e };
  if (bankId !== "memories") return null;
  if (decoded.length === 5) return { kind: "retain", bankId: d };
  if (decoded.length === 6 && e === "list") return { kind: "list", bankId: d };
  if (decoded.length === 6 && e === "recall") return { kind: "recall", bankId: d };
  if (decoded.length === 6 && e !== undefined && e !== "") return { kind: "memory", bankId: d, memoryId: e };
  void f;
  void g;
  return null;
}

export async function startLocalBank(options: LocalBankOptions = {}): Promise<LocalBank> {
  const host = options.host ?? "127.0.0.1";
  if (host !== "127.0.0.1" && host !== "::1") throw new LocalBankOptionError("host", `the local bank listens on loopback only (127.0.0.1 or ::1), not ${String(host)}`);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const maxItemBytes = options.maxItemBytes ?? DEFAULT_MAX_ITEM_BYTES;
  for (const [name, value] of [["maxBodyBytes", maxBodyBytes], ["maxItemBytes", maxItemBytes]] as const) {
    if (!Number.isSafeInteger(value) || value < 1) throw new LocalBankOptionError(name, `expected a positive integer, got ${String(value)}`);
  }
  if (options.apiKey !== undefined && options.apiKey.trim() === "") throw new LocalBankOptionError("apiKey", "an empty API key would let anyone in; omit it or give a real one");
  const faultRoutes = options.faultRoutes === true;
  const port = options.port ?? 0;
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new LocalBankOptionError("port", `expected an integer 0–65535, got ${port}`);
  const apiVersion = options.version ?? DEFAULT_API_VERSION;
  const supportsPatch = versionAtLeast(apiVersion, "0.8.2");
  const clock = options.now ?? ((): Date => new Date());
  const store = new BankStore(options.dataDir, options.fileSystem);
  let hosts = new Set<string>();
  const faults = new FaultState(options.faults);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    // Strangers first, before the body is read: a page the browser was rebound to (Host), a key missing.
    if (!hosts.has((req.headers.host ?? "").toLowerCase())) throw new HttpAnswer(421, "Misdirected Request: this bank answers only to a loopback Host header");
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const method = (req.method ?? "GET").toUpperCase();
    const r = route(url.pathname);
    if (r === null || (r.kind === "admin-faults" && !faultRoutes)) throw new HttpAnswer(404, "Not Found");
    if (options.apiKey !== undefined && r.kind !== "health" && r.kind !== "version" && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      throw new HttpAnswer(401, "Invalid or missing API key");
    }
    // A body must say it is JSON: a cross-site form or text/plain POST never reaches the store.
    const hasBody = Number(req.headers["content-length"] ?? "0") > 0 || req.headers["transfer-encoding"] !== undefined;
    if ((method === "POST" || method === "PUT" || method === "PATCH") && hasBody && !isJsonContentType(req.headers["content-type"])) {
      throw new HttpAnswer(415, "Unsupported Media Type: send the body as application/json");
    }
    const raw = await readBody(req, maxBodyBytes);
    const admin = r.kind === "admin-faults" || r.kind === "admin-stats";
    if (!admin) {
      const header = faultRoutes ? req.headers[FAULT_HEADER] : undefined;
      const decision = faults.decide(method, Array.isArray(header) ? header[0] : header);
      if (decision.delayMs > 0) await sleep(decision.delayMs);
      if (decision.status === 429) {
        const headers: Record<string, string> = decision.retryAfterSeconds === undefined ? {} : { "retry-after": String(decision.retryAfterSeconds) };
        send(res, 429, { detail: "Too Many Requests (injected fault)" }, headers);
        return;
      }
      if (decision.status === 500) throw new HttpAnswer(500, "Internal Server Error (injected fault)");
      if (!METHODS[r.kind].includes(method) || (r.kind === "memory" && method === "PATCH" && !supportsPatch)) throw new HttpAnswer(405, "Method Not Allowed");
      const answer = dispatch(r, method, url.searchParams, raw, decision.patchNoop);
      if (decision.loseAnswer || (r.kind === "retain" && faults.takeLostRetain())) {
        // The work is done (journaled) but the client never hears so: a lost answer.
        res.destroy();
        return;
      }
      send(res, 200, answer);
      return;
    }
    if (!METHODS[r.kind].includes(method)) throw new HttpAnswer(405, "Method Not Allowed");
    if (r.kind === "admin-faults") {
      if (method === "PUT") {
        const body = raw.trim() === "" ? {} : (parseJsonBody(raw) as FaultPlan);
        faults.set(body);
      }
      send(res, 200, { plan: faults.current(), counters: faults.counters() });
      return;
    }
    const usage = process.resourceUsage();
    send(res, 200, { rssBytes: process.memoryUsage.rss(), maxRssBytes: usage.maxRSS * 1024, pid: process.pid });
  }

  function dispatch(r: Route, method: string, query: URLSearchParams, raw: string, patchNoop: boolean): unknown {
    const now = clock().toISOString();
    switch (r.kind) {
      case "health":
        return { status: "healthy", database: "connected" };
      case "version":
        return { api_version: apiVersion, features: { ...FEATURES } };
      case "banks": {
        const check = new Checker();
        const limit = check.integer(query.get("limit") ?? undefined, ["query", "limit"], 0) ?? 100;
        const offset = check.integer(query.get("offset") ?? undefined, ["query", "offset"], 0) ?? 0;
        check.done();
        const q = query.get("q")?.toLowerCase() ?? null;
        const all = store.listBanks().filter((b) => q === null || b.bank.bankId.toLowerCase().includes(q) || b.bank.name.toLowerCase().includes(q));
        const banks = all.slice(offset, offset + limit).map(({ bank, factCount, lastWriteAt }) => ({
          bank_id: bank.bankId,
          name: bank.name,
          disposition: { ...bank.disposition },
          mission: bank.mission,
          created_at: bank.createdAt,
          updated_at: bank.updatedAt,
          fact_count: factCount,
          last_document_at: lastWriteAt,
          last_write_at: lastWriteAt,
        }));
        return { banks, total: all.length, limit, offset };
      }
      case "bank": {
        if (method === "GET") {
          const bank = store.bank(r.bankId) ?? store.putBank(r.bankId, {}, now);
          return bankProfile(bank);
        }
        return bankProfile(store.putBank(r.bankId, readBankBody(raw), now));
      }
      case "list":
        return listMemories(r.bankId, query);
      case "memory": {
        if (method === "GET") {
          if (!isUuid(r.memoryId)) throw new HttpAnswer(400, `Invalid memory_id: '${r.memoryId}' is not a valid UUID`);
          const memory = store.get(r.bankId, r.memoryId.toLowerCase());
          if (memory === undefined) throw new HttpAnswer(404, `Memory unit '${r.memoryId}' not found`);
          return getItem(memory);
        }
        return patchMemory(r.bankId, r.memoryId, raw, now, patchNoop);
      }
      case "recall":
        return recall(r.bankId, raw);
      case "reflect":
        return reflect(r.bankId, raw);
      case "document":
        return documentOf(r.bankId, r.documentId);
      case "retain":
        return retain(r.bankId, raw, now);
      default:
        throw new HttpAnswer(404, "Not Found");
    }
  }

  function readBankBody(raw: string): { name?: string; mission?: string; disposition?: { skepticism: number; literalism: number; empathy: number } } {
    if (raw.trim() === "") return {};
    const check = new Checker();
    const body = check.object(parseJsonBody(raw), ["body"]);
    check.done();
    if (body === undefined) return {};
    const name = check.string(body["name"], ["body", "name"]);
    const mission = check.string(body["reflect_mission"] ?? body["mission"] ?? body["background"], ["body", "mission"]);
    let disposition: { skepticism: number; literalism: number; empathy: number } | undefined;
    const d = body["disposition"];
    if (d !== undefined && d !== null) {
      const obj = check.object(d, ["body", "disposition"]);
      if (obj !== undefined) {
        const trait = (k: string): number => {
          const v = check.integer(obj[k], ["body", "disposition", k], 1, 5);
          if (obj[k] === undefined) check.missing(["body", "disposition", k], obj);
          return v ?? 3;
        };
        disposition = { skepticism: trait("skepticism"), literalism: trait("literalism"), empathy: trait("empathy") };
      }
    }
    const single = (k: "skepticism" | "literalism" | "empathy"): number | undefined => check.integer(body[`disposition_${k}`], ["body", `disposition_${k}`], 1, 5);
    const sk = single("skepticism");
    const li = single("literalism");
    const em = single("empathy");
    check.done();
    if (sk !== undefined || li !== undefined || em !== undefined) {
      const base = disposition ?? { skepticism: 3, literalism: 3, empathy: 3 };
      disposition = { skepticism: sk ?? base.skepticism, literalism: li ?? base.literalism, empathy: em ?? base.empathy };
    }
    return {
      ...(typeof name === "string" ? { name } : {}),
      ...(typeof mission === "string" ? { mission } : {}),
      ...(disposition === undefined ? {} : { disposition }),
    };
  }

  function listMemories(bankId: string, query: URLSearchParams): unknown {
    const check = new Checker();
    const limit = check.integer(query.get("limit") ?? undefined, ["query", "limit"], 0) ?? 100;
    const offset = check.integer(query.get("offset") ?? undefined, ["query", "offset"], 0) ?? 0;
    const tagsMatch = check.literal(query.get("tags_match") ?? undefined, ["query", "tags_match"], TAGS_MATCH) ?? "any";
    check.done();
    const type = query.get("type");
    if (type !== null && type !== "" && !(FACT_TYPES as readonly string[]).includes(type)) {
      throw new HttpAnswer(400, `Invalid type '${type}'. Must be one of: world, experience, observation`);
    }
    const state = query.get("state");
    if (state !== null && state !== "" && state !== "valid" && state !== "invalidated") {
      throw new HttpAnswer(400, `Invalid state '${state}'. Must be 'valid' or 'invalidated'`);
    }
    const tags = query.getAll("tags");
    const filter: ListFilter = {
      type: type === null || type === "" ? null : (type as StoredFactType),
      q: query.get("q"),
      state: state === "invalidated" ? "invalidated" : "valid",
      tags: tags.length === 0 ? null : tags,
      tagsMatch,
      documentId: query.get("document_id"),
    };
    const rows = store.select(bankId, filter);
    return { items: rows.slice(offset, offset + limit).map(listItem), total: rows.length, limit, offset };
  }

  function patchMemory(bankId: string, memoryId: string, raw: string, now: string, noop: boolean): unknown {
    const check = new Checker();
    const body = check.object(parseJsonBody(raw), ["body"]);
    check.done();
    if (body === undefined) return undefined;
    const text = check.string(body["text"], ["body", "text"]);
    const context = check.string(body["context"], ["body", "context"]);
    const occurredStart = check.string(body["occurred_start"], ["body", "occurred_start"]);
    const occurredEnd = check.string(body["occurred_end"], ["body", "occurred_end"]);
    const factType = check.string(body["fact_type"], ["body", "fact_type"]);
    const entities = check.stringArray(body["entities"], ["body", "entities"]);
    check.boolean(body["resolve_entities"], ["body", "resolve_entities"]);
    const state = check.literal(body["state"], ["body", "state"], ["valid", "invalidated"] as const);
    const reason = check.string(body["reason"], ["body", "reason"]);
    check.done();
    const edits = [text, context, occurredStart, occurredEnd, factType, entities].some((v) => v !== undefined && v !== null);
    if (!edits && state === undefined) {
      check.valueError(["body"], "At least one of 'text', 'context', 'occurred_start', 'occurred_end', 'fact_type', 'entities' or 'state' must be set", body);
      check.done();
    }
    if (!isUuid(memoryId)) throw new HttpAnswer(400, `Invalid memory_id: '${memoryId}' is not a valid UUID`);
    if (typeof factType === "string" && factType !== "world" && factType !== "experience") {
      throw new HttpAnswer(400, `Invalid fact_type '${factType}'. Must be 'world' or 'experience'`);
    }
    const input: PatchInput = {
      ...(typeof text === "string" ? { text } : {}),
      ...(typeof context === "string" ? { context } : {}),
      ...(typeof occurredStart === "string" ? { occurredStart } : {}),
      ...(typeof occurredEnd === "string" ? { occurredEnd } : {}),
      ...(factType === "world" || factType === "experience" ? { factType } : {}),
      ...(Array.isArray(entities) ? { entities } : {}),
      ...(state === undefined ? {} : { state }),
      ...(typeof reason === "string" ? { reason } : {}),
    };
    const outcome = store.patch(bankId, memoryId.toLowerCase(), input, now, noop);
    switch (outcome.kind) {
      case "not-found":
        throw new HttpAnswer(404, `Memory unit '${memoryId}' not found`);
      case "observation":
        throw new HttpAnswer(400, "Only world and experience facts can be curated; observations are derived");
      case "invalidated-edit":
        throw new HttpAnswer(400, "Cannot edit an invalidated memory; revert it with state='valid' first");
      default:
        return getItem(outcome.memory);
    }
  }

  /** Valid memories matching the query (tags filtered, ranked lexically) within `max_tokens`; shared by recall and reflect. */
  function recalled(bankId: string, body: Record<string, unknown>, typesKey: "types" | "fact_types"): { memory: StoredMemory; score: number }[] {
    const check = new Checker();
    if (body["query"] === undefined) check.missing(["body", "query"], body);
    const query = check.string(body["query"], ["body", "query"], false);
    const types = check.stringArray(body[typesKey], ["body", typesKey]);
    check.literal(body["budget"], ["body", "budget"], ["low", "mid", "high"] as const);
    const maxTokens = check.integer(body["max_tokens"], ["body", "max_tokens"]) ?? 4096;
    const tags = check.stringArray(body["tags"], ["body", "tags"]);
    const tagsMatch = check.literal(body["tags_match"], ["body", "tags_match"], TAGS_MATCH) ?? "any";
    check.done();
    if (typeof query !== "string" || !hasWordCharacter(query)) {
      check.valueError(["body", "query"], "query must contain at least one word character", query);
      check.done();
    }
    const wanted = types === undefined || types === null || types.length === 0 ? FACT_TYPES : types;
    const candidates: StoredMemory[] = store
      .select(bankId, { type: null, q: null, state: "valid", tags: tags ?? null, tagsMatch, documentId: null })
      .filter((m) => wanted.includes(m.factType));
    const out: { memory: StoredMemory; score: number }[] = [];
    let used = 0;
    for (const hit of rankLexically(query as string, candidates)) {
      const cost = Math.ceil(hit.memory.text.length / 4);
      if (used + cost > maxTokens) break;
      used += cost;
      out.push(hit);
    }
    return out;
  }

  function recall(bankId: string, raw: string): unknown {
    const check = new Checker();
    const body = check.object(parseJsonBody(raw), ["body"]);
    check.done();
    if (body === undefined) return undefined;
    const results = recalled(bankId, body, "types").map(({ memory, score }) => recallResult(memory, score));
    return { results, entities: null, chunks: null };
  }

  // Reflect in the official response shape, without a model: the recalled memories grouped by fact
  // type, under a line saying no model was used. Never a made-up synthesis.
  function reflect(bankId: string, raw: string): unknown {
    const check = new Checker();
    const body = check.object(parseJsonBody(raw), ["body"]);
    check.done();
    if (body === undefined) return undefined;
    const hits = recalled(bankId, body, "fact_types");
    const include = body["include"];
    const withFacts = typeof include === "object" && include !== null && (include as Record<string, unknown>)["facts"] !== undefined && (include as Record<string, unknown>)["facts"] !== null;
    return {
      text: reflectText(String(body["query"]), hits.map((h) => h.memory)),
      based_on: withFacts ? { memories: hits.map(({ memory }) => reflectFact(memory)), mental_models: [], directives: [] } : null,
      structured_output: null,
      usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
      trace: null,
    };
  }

  function documentOf(bankId: string, documentId: string): unknown {
    const base = { type: null, q: null, tags: null, tagsMatch: "any" as const, documentId };
    const live = store.select(bankId, { ...base, state: "valid" });
    const all = [...live, ...store.select(bankId, { ...base, state: "invalidated" })];
    if (all.length === 0) throw new HttpAnswer(404, `Document '${documentId}' not found`);
    return documentResponse(bankId, documentId, live, all);
  }

  function retain(bankId: string, raw: string, now: string): unknown {
    const check = new Checker();
    const body = check.object(parseJsonBody(raw), ["body"]);
    check.done();
    if (body === undefined) return undefined;
    const itemsRaw = body["items"];
    if (itemsRaw === undefined) check.missing(["body", "items"], body);
    else if (!Array.isArray(itemsRaw)) check.issues.push({ type: "list_type", loc: ["body", "items"], msg: "Input should be a valid list", input: itemsRaw });
    const isAsync = check.boolean(body["async"], ["body", "async"]) ?? false;
    const items: RetainInput[] = [];
    (Array.isArray(itemsRaw) ? (itemsRaw as unknown[]) : []).forEach((value, i) => {
      const loc = ["body", "items", i];
      const item = check.object(value, loc);
      if (item === undefined) return;
      const itemBytes = Buffer.byteLength(JSON.stringify(item));
      if (itemBytes > maxItemBytes) {
        check.valueError(loc, `the item is ${String(itemBytes)} bytes; one item may be at most ${String(maxItemBytes)} bytes`, null);
        return;
      }
      if (item["content"] === undefined) check.missing([...loc, "content"], item);
      const content = check.string(item["content"], [...loc, "content"], false);
      const ts = check.string(item["timestamp"], [...loc, "timestamp"]);
      let timestamp: string | null = now;
      if (ts === "unset") timestamp = null;
      else if (typeof ts === "string") {
        const normalized = normalizeTimestamp(ts);
        if (normalized === undefined) check.valueError([...loc, "timestamp"], `Invalid timestamp '${ts}': expected ISO 8601 or 'unset'`, ts);
        else timestamp = normalized;
      }
      const context = check.string(item["context"], [...loc, "context"]);
      const metadata = check.stringMap(item["metadata"], [...loc, "metadata"]);
      const documentId = check.string(item["document_id"], [...loc, "document_id"]);
      const tags = check.stringArray(item["tags"], [...loc, "tags"]);
      const entities: string[] = [];
      const entitiesRaw = item["entities"];
      if (entitiesRaw !== undefined && entitiesRaw !== null) {
        if (!Array.isArray(entitiesRaw)) check.issues.push({ type: "list_type", loc: [...loc, "entities"], msg: "Input should be a valid list", input: entitiesRaw });
        else
          entitiesRaw.forEach((e: unknown, j) => {
            const entity = check.object(e, [...loc, "entities", j]);
            if (entity === undefined) return;
            if (entity["text"] === undefined) check.missing([...loc, "entities", j, "text"], entity);
            const name = check.string(entity["text"], [...loc, "entities", j, "text"], false);
            check.string(entity["type"], [...loc, "entities", j, "type"]);
            if (typeof name === "string") entities.push(name);
          });
      }
      if (typeof content === "string") {
        items.push({
          content,
          timestamp,
          context: typeof context === "string" ? context : null,
          metadata: metadata ?? {},
          documentId: typeof documentId === "string" ? documentId : null,
          entities,
          tags: tags ?? [],
        });
      }
    });
    check.done();
    store.retain(bankId, items, now);
    const operationId = isAsync ? (typeof body["operation_id"] === "string" ? body["operation_id"] : randomUUID()) : null;
    return { success: true, bank_id: bankId, items_count: items.length, async: isAsync, operation_id: operationId };
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const code = (error as { code?: unknown }).code;
      if (error instanceof RequestInvalid) send(res, 422, { detail: error.issues });
      else if (error instanceof HttpAnswer) {
        // A refused upload is not read to its end: close the connection once the answer is out.
        send(res, error.status, error.body, error.status === 413 ? { connection: "close" } : {});
        if (error.status === 413) res.once("finish", () => req.destroy());
      } else if (code === "ENOSPC" || code === "EDQUOT") send(res, 507, { detail: `Insufficient Storage: the disk is full (${String(code)}); nothing was stored` });
      else send(res, 500, { detail: `Internal Server Error: ${error instanceof Error ? error.message : String(error)}` });
    });
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const actualPort = (server.address() as AddressInfo).port;
  hosts = allowedHosts(host, actualPort);
  let closed: Promise<void> | null = null;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${actualPort}`,
    port: actualPort,
    faults,
    tornBytesDropped: store.tornBytesDropped,
    damage: store.damage,
    notices: store.notices,
    close(): Promise<void> {
      closed ??= new Promise<void>((resolve, reject) => {
        server.close(() => {
          try {
            store.close();
            resolve();
          } catch (error) {
            reject(error instanceof Error ? error : new Error(String(error)));
          }
        });
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
