// Grows a Pi-written base session to very large sizes (up to 1 GB and beyond) by appending copies of
// its plain turns with fresh ids, tool-call ids, response ids and later timestamps, keeping the tree valid.
import { closeSync, openSync, statSync, writeSync } from "node:fs";
import type { SessionManager } from "@earendil-works/pi-coding-agent";
import type { SeededRandom } from "./random.js";
import type { SeededClock } from "./seeded-pi.js";
import type { TurnRecord } from "./session-writer.js";

/** Above this target, the session is a Pi-written base of REPLICATION_BASE_BYTES plus replicas. */
export const REPLICATION_THRESHOLD_BYTES = 160 * 1024 * 1024;
export const REPLICATION_BASE_BYTES = 48 * 1024 * 1024;
const FLUSH_BYTES = 16 * 1024 * 1024;

export class ReplicationError extends Error {
  readonly code = "E_GEN_REPLICATION" as const;
  constructor(message: string) {
    super(message);
    this.name = "ReplicationError";
  }
}

/** One template turn: each entry's JSON split into literal text and replaceable tokens. */
interface TemplateTurn {
  /** Per entry: [literal, token, literal, token, …, literal]. */
  readonly entries: string[][];
  readonly ids: string[];
  readonly firstParent: string;
  readonly toolCallIds: string[];
  readonly responseIds: string[];
  /** Pi's `/tmp/pi-bash-<16 hex>.log` paths of truncated bash outputs: each copy names its own. */
  readonly outputPaths: string[];
  readonly firstMs: number;
  readonly lastMs: number;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function buildTemplate(sm: SessionManager, record: TurnRecord): TemplateTurn | undefined {
  const entries = record.entryIds.map((id) => sm.getEntry(id));
  if (entries.length < 2 || entries.some((e) => e === undefined || e.type !== "message")) return undefined;
  const ids: string[] = [];
  const toolCallIds: string[] = [];
  const responseIds: string[] = [];
  const outputPaths: string[] = [];
  const times: number[] = [];
  let prev: string | undefined;
  for (const e of entries) {
    if (!e || e.type !== "message") return undefined;
    if (prev !== undefined && e.parentId !== prev) return undefined; // not a linear chain
    prev = e.id;
    ids.push(e.id);
    times.push(Date.parse(e.timestamp));
    const m = e.message as unknown as { role: string; toolCallId?: string; responseId?: string; content?: unknown; details?: { fullOutputPath?: unknown } };
    if (m.role === "toolResult" && typeof m.details?.fullOutputPath === "string") outputPaths.push(m.details.fullOutputPath);
    if (m.role === "assistant") {
      if (typeof m.responseId === "string") responseIds.push(m.responseId);
      if (Array.isArray(m.content)) {
        for (const part of m.content as { type?: string; id?: string }[]) if (part.type === "toolCall" && typeof part.id === "string") toolCallIds.push(part.id);
      }
    }
  }
  const first = entries[0];
  if (!first || first.parentId === null) return undefined;
  const tokens = [
    ...ids.map((id) => `"id":"${id}"`),
    ...ids.map((id) => `"parentId":"${id}"`),
    `"parentId":"${first.parentId}"`,
    ...toolCallIds,
    ...responseIds,
    ...outputPaths,
  ];
  // Timestamps: ISO strings on entries, epoch ms on messages.
  const timeTokens = new Set<string>();
  for (const e of entries) {
    if (!e) continue;
    timeTokens.add(`"timestamp":"${e.timestamp}"`);
    const ms = (e.type === "message" ? (e.message as { timestamp?: unknown }).timestamp : undefined);
    if (typeof ms === "number") timeTokens.add(`"timestamp":${ms}`);
  }
  const all = [...new Set([...tokens, ...timeTokens])].sort((a, b) => b.length - a.length);
  // An alternation of literal strings: linear-time.
  const splitter = new RegExp(`(${all.map(escapeRegex).join("|")})`, "g");
  return {
    entries: entries.map((e) => JSON.stringify(e).split(splitter)),
    ids,
    firstParent: first.parentId,
    toolCallIds,
    responseIds,
    outputPaths,
    firstMs: Math.min(...times),
    lastMs: Math.max(...times),
  };
}

export interface ReplicationResult {
  entries: number;
  leafId: string;
  bytes: number;
}

/** Appends replicas of the plain turns of `sm`'s session to `path` until it holds `targetBytes`. */
export async function replicate(
  path: string,
  sm: SessionManager,
  turns: readonly TurnRecord[],
  targetBytes: number,
  ids: SeededRandom,
  clock: SeededClock,
): Promise<ReplicationResult> {
  const templates = turns.filter((t) => t.plain && !t.onBranch).map((t) => buildTemplate(sm, t)).filter((t): t is TemplateTurn => t !== undefined);
  if (templates.length === 0) throw new ReplicationError(`no plain turn in the base session of ${path} to replicate`);
  const used = new Set(sm.getEntries().map((e) => e.id));
  const freshId = (): string => {
    let id = ids.hex(8);
    while (used.has(id)) id = ids.hex(8);
    used.add(id);
    return id;
  };
  let leaf = sm.getLeafId() ?? "";
  let bytes = statSync(path).size;
  let entries = 0;
  let now = clock.now;
  const fd = openSync(path, "a");
  try {
    let buffer: string[] = [];
    let buffered = 0;
    for (let i = 0; bytes < targetBytes; i++) {
      const t = templates[i % templates.length] as TemplateTurn;
      const map = new Map<string, string>();
      const newIds = t.ids.map(() => freshId());
      t.ids.forEach((id, k) => {
        map.set(`"id":"${id}"`, `"id":"${newIds[k] ?? ""}"`);
        map.set(`"parentId":"${id}"`, `"parentId":"${newIds[k] ?? ""}"`);
      });
      map.set(`"parentId":"${t.firstParent}"`, `"parentId":"${leaf}"`);
      for (const id of t.toolCallIds) map.set(id, `toolu_01${ids.base62(22)}`);
      for (const id of t.responseIds) map.set(id, `msg_01${ids.base62(22)}`);
      for (const path of t.outputPaths) map.set(path, `/tmp/pi-bash-${ids.hex(16)}.log`);
      const shift = now + ids.int(30_000, 300_000) - t.firstMs;
      for (const parts of t.entries) {
        let line = "";
        for (let k = 0; k < parts.length; k++) {
          const part = parts[k] ?? "";
          if (k % 2 === 0) {
            line += part;
            continue;
          }
          const mapped = map.get(part);
          if (mapped !== undefined) line += mapped;
          else if (part.startsWith(`"timestamp":"`)) line += `"timestamp":"${new Date(Date.parse(part.slice(13, -1)) + shift).toISOString()}"`;
          else if (part.startsWith(`"timestamp":`)) line += `"timestamp":${Number(part.slice(12)) + shift}`;
          else line += part;
        }
        line += "\n";
        buffer.push(line);
        buffered += line.length;
        bytes += Buffer.byteLength(line);
        entries++;
      }
      now = t.lastMs + shift;
      leaf = newIds[newIds.length - 1] ?? leaf;
      if (buffered >= FLUSH_BYTES) {
        writeSync(fd, buffer.join(""));
        buffer = [];
        buffered = 0;
      }
    }
    if (buffer.length > 0) writeSync(fd, buffer.join(""));
  } finally {
    closeSync(fd);
  }
  clock.now = now;
  return { entries, leafId: leaf, bytes: statSync(path).size };
}
