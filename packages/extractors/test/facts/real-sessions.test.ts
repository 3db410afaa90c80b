// Facts and artifacts on every real Pi session fixture, against ground truth computed here straight from
// the JSONL (JSON.parse per line, parentId walk), independently of the ledger reader and the extractors.
import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
import { lineageBlocks, readSession } from "@context-fold/ledger-reader";
import { describeShared, sessionFixtures } from "@context-fold/test-support";
import { extractArtifacts, extractFacts } from "@context-fold/extractors";

type Json = Record<string, unknown>;

interface Truth {
  cwd: string | undefined;
  firstUser: string | undefined;
  redirects: string[];
  changedFiles: Set<string>;
  commits: Set<string>;
  /** command → did its last run fail (non-search commands only) */
  lastRunFailed: Map<string, boolean>;
  /** commands that failed at least once before their last run */
  failedBefore: Set<string>;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((p): p is Json => typeof p === "object" && p !== null && (p as Json)["type"] === "text")
    .map((p) => String(p["text"] ?? ""))
    .join("\n");
}

function lineage(entries: Json[]): Json[] {
  const withIds = entries.filter((e) => typeof e["id"] === "string");
  if (withIds.length === 0) return entries;
  const byId = new Map(withIds.map((e) => [e["id"] as string, e]));
  const out: Json[] = [];
  let cur: Json | undefined = withIds[withIds.length - 1];
  while (cur !== undefined) {
    out.push(cur);
    const parent = cur["parentId"];
    cur = typeof parent === "string" ? byId.get(parent) : undefined;
  }
  return out.reverse();
}

const COMMIT_LINE = /^\[[^\]\n]+ ([0-9a-f]{7,40})\] /gm;
const SEARCH = /^(?:grep|rg|find|fd|ag)\b/;

/** "The same command": the session's own directory, 2>&1 and a trailing | tail/| head do not matter. */
function sameCommand(command: string, cwd: string | undefined): string {
  let c = command.trim().replace(/ 2>&1/g, "");
  if (cwd !== undefined && c.startsWith(`cd ${cwd} && `)) c = c.slice(`cd ${cwd} && `.length);
  return c.replace(/\s*\|\s*(?:tail|head)(?: -n)?(?: -?\d+)?\s*$/, "").trim();
}

function truth(file: string): Truth {
  const entries: Json[] = [];
  let header: Json | undefined;
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line.trim() === "") continue;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch {
      continue;
    }
    if (typeof v !== "object" || v === null) continue;
    const e = v as Json;
    if (e["type"] === "session") header = e;
    else entries.push(e);
  }
  const cwd = typeof header?.["cwd"] === "string" ? (header["cwd"] as string) : undefined;
  const rel = (p: string): string => {
    let q = p.startsWith("./") ? p.slice(2) : p;
    if (cwd !== undefined && q.startsWith(`${cwd}/`)) q = q.slice(cwd.length + 1);
    return q;
  };
  const t: Truth = { cwd, firstUser: undefined, redirects: [], changedFiles: new Set(), commits: new Set(), lastRunFailed: new Map(), failedBefore: new Set() };
  const calls = new Map<string, { name: string; args: Json }>();
  const run = (command: string, output: string, exitFailed: boolean): void => {
    if (/\bgit\b/.test(command)) for (const m of output.matchAll(COMMIT_LINE)) t.commits.add(m[1] ?? "");
    const c = sameCommand(command, cwd);
    if (SEARCH.test(c) || c.includes("|")) return;
    // With a pipe the exit code is the filter's: an error in the output is a failure all the same.
    const failed = exitFailed || /^(?:npm error|npm ERR!|error\b)|\berror TS\d/m.test(output);
    if (t.lastRunFailed.get(c) === true) t.failedBefore.add(c);
    t.lastRunFailed.set(c, failed);
  };
  for (const e of lineage(entries)) {
    const m = e["message"] as Json | undefined;
    if (e["type"] !== "message" || m === undefined) continue;
    const role = m["role"];
    if (role === "user") {
      const text = textOf(m["content"]);
      if (t.firstUser === undefined) t.firstUser = text;
      else if (/^(?:no[,.! ]|actually\b|stop\b|don'?t\b|instead\b)/i.test(text.trimStart())) t.redirects.push(text);
    } else if (role === "assistant" && Array.isArray(m["content"])) {
      for (const p of m["content"] as Json[]) {
        if (p["type"] === "toolCall") calls.set(String(p["id"]), { name: String(p["name"]), args: (p["arguments"] ?? {}) as Json });
      }
    } else if (role === "toolResult") {
      const call = calls.get(String(m["toolCallId"]));
      if (call === undefined) continue;
      const out = textOf(m["content"]);
      const isError = m["isError"] === true;
      if ((call.name === "edit" || call.name === "write") && !isError && typeof call.args["path"] === "string") {
        t.changedFiles.add(rel(call.args["path"]));
      }
      if (call.name === "bash" && typeof call.args["command"] === "string") {
        const exit = /Command exited with code (\d+)\s*$/.exec(out);
        run(call.args["command"], out, isError || (exit !== null && exit[1] !== "0"));
      }
    } else if (role === "bashExecution") {
      run(String(m["command"] ?? ""), String(m["output"] ?? ""), typeof m["exitCode"] === "number" && m["exitCode"] !== 0);
    }
  }
  return t;
}

describeShared("real sessions (independent ground truth)", () => {
  for (const file of sessionFixtures()) {
    const name = file.slice(file.lastIndexOf("/") + 1);
    it(name, async () => {
      const session = await readSession(file);
      const blocks = lineageBlocks(session);
      const expected = truth(file);
      const options = expected.cwd !== undefined ? { cwd: expected.cwd } : {};
      const f = extractFacts(blocks, options);
      const a = extractArtifacts(blocks, options);

      expect(a.initialPrompts[0]?.text).toBe(expected.firstUser);
      const corrections = a.corrections.map((c) => c.text);
      for (const r of expected.redirects) expect(corrections, r.slice(0, 80)).toContain(r);

      const changed = new Set(f.files.filter((x) => x.status !== "read").map((x) => x.path));
      for (const p of expected.changedFiles) expect(changed.has(p), p).toBe(true);
      expect(new Set(a.files)).toEqual(changed);

      expect(new Set(f.commits.map((c) => c.hash))).toEqual(expected.commits);
      for (const h of a.hexConstants) expect(expected.commits.has(h.value.toLowerCase())).toBe(false);

      const openExit = f.outstanding.filter((o) => o.source === "bash-exit" && !o.resolved && o.severity === "ERROR");
      const resolvedExit = f.outstanding.filter((o) => o.source === "bash-exit" && o.resolved);
      const same = (o: { command?: string }, command: string): boolean =>
        o.command !== undefined && sameCommand(o.command, expected.cwd) === command.split("\n")[0]?.slice(0, 119);
      for (const [command, failed] of expected.lastRunFailed) {
        if (command.includes("\n") || command.length > 119) continue; // shown clipped to one line
        const label = command.slice(0, 80);
        if (failed) expect(openExit.some((o) => same(o, command)), `open: ${label}`).toBe(true);
        else if (expected.failedBefore.has(command)) expect(resolvedExit.some((o) => same(o, command)), `resolved: ${label}`).toBe(true);
      }
    }, 60_000);
  }
});
