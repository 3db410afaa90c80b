// The HTTP face of the local bank (node:http, loopback only): the Hindsight API subset the gardener
// uses, answering with the real server's shapes and status codes, plus test-only admin routes.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import type { FileSystem } from "@context-fold/durable-fs";
import { PATCH_MIN_VERSION, versionAtLeast } from "@context-fold/hindsight-api";
import { BankStore } from "./bank-store.js";
import { LocalBankOptionError } from "./errors.js";
import { FAULT_HEADER, FaultState, type FaultController, type FaultPlan } from "./faults.js";
import { createDispatch } from "./handlers.js";
import { HttpAnswer } from "./http-answer.js";
import type { StorageDamage } from "./journal.js";
import { isJsonContentType, readBody } from "./request-body.js";
import { RequestInvalid, parseJsonBody } from "./request-validation.js";
import { METHODS, route } from "./routes.js";
import { allowedHosts, send } from "./transport.js";

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
  const supportsPatch = versionAtLeast(apiVersion, PATCH_MIN_VERSION);
  const clock = options.now ?? ((): Date => new Date());
  const store = new BankStore(options.dataDir, options.fileSystem);
  let hosts = new Set<string>();
  const faults = new FaultState(options.faults);
  const dispatch = createDispatch({ store, clock, apiVersion, maxItemBytes });

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

  /** Reads and drops what is left of a refused upload — at most 64 MB or 5 s, then the socket is cut. */
  function discardRest(req: IncomingMessage): void {
    if (req.complete) return;
    let dropped = 0;
    const cut = setTimeout(() => req.destroy(), 5_000);
    cut.unref();
    req.on("data", (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > 64 * 1024 * 1024) req.destroy();
    });
    req.once("close", () => clearTimeout(cut));
    req.resume();
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
        // A refused upload is not kept, but the rest of it is read and dropped (bounded, see discardRest) so a
        // client still writing reads the 413 instead of a reset socket: closing with unread bytes sends a reset.
        send(res, error.status, error.body);
        if (error.status === 413) discardRest(req);
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
