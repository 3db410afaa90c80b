// The handlers of the Hindsight API routes: each reads its query or JSON body (invalid → 422 with the
// real server's issue list, through request-validation), acts on the store and answers in the real
// server's shapes (wire-shapes). Pure of the transport: the server calls `dispatch` with the raw body.
import { randomUUID } from "node:crypto";
import type { BankStore, ListFilter, PatchInput, RetainInput, TagsMatch } from "./bank-store.js";
import { HttpAnswer } from "./http-answer.js";
import { hasWordCharacter, rankLexically } from "./lexical-recall.js";
import type { StoredFactType, StoredMemory } from "./records.js";
import { Checker, isUuid, normalizeTimestamp, parseJsonBody } from "./request-validation.js";
import type { Route } from "./routes.js";
import { FEATURES, bankProfile, documentResponse, getItem, listItem, recallResult, reflectFact, reflectText } from "./wire-shapes.js";

const FACT_TYPES: readonly StoredFactType[] = ["world", "experience", "observation"];
const TAGS_MATCH: readonly TagsMatch[] = ["any", "all", "any_strict", "all_strict", "exact"];

export interface HandlerContext {
  readonly store: BankStore;
  readonly clock: () => Date;
  /** The api_version the bank reports. */
  readonly apiVersion: string;
  /** Largest retained item (its JSON). */
  readonly maxItemBytes: number;
}

/** What a route answers with (the 200 body), given the request's method, query and raw body. */
export type Dispatch = (r: Route, method: string, query: URLSearchParams, raw: string, patchNoop: boolean) => unknown;

export function createDispatch(context: HandlerContext): Dispatch {
  const { store, clock, apiVersion, maxItemBytes } = context;
  return dispatch;

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
}
