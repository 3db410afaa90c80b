#!/usr/bin/env node
// The library packages' `engines` floor, proven: the contract package (seed-index-format, with the
// durable-fs it imports) and the ledger reader promise a Node older than the CLI's and the extension's.
// This script runs their built `dist` under exactly that Node (the registry's `node` package at the floor
// version, through npx) and under the Node running it: every conformance vector must pass in both, and
// reading every Pi session fixture (plus a seed-index write and read back) must give the same digest in
// both. Plain JavaScript with no imports but Node's and the dist files, so it runs on the floor itself.
//   node tools/check-engines-floor.mjs            check (needs npm's registry or its cache, and ../shared)
//   node tools/check-engines-floor.mjs --probe    one run under the Node running it: prints the digest
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { deepStrictEqual, equal, ok } from "node:assert/strict";

// Not import.meta.dirname/filename: the script must itself run on any Node it is asked to try.
const self = fileURLToPath(import.meta.url);
const root = resolve(self, "..", "..");
const LIBRARIES = ["durable-fs", "seed-index-format", "ledger-reader"];

/** The one floor the libraries state (`>=X.Y.Z` in each package.json); they must agree. */
function floor() {
  const ranges = LIBRARIES.map((name) => JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")).engines?.node);
  const versions = ranges.map((range) => /^>=(\d+\.\d+\.\d+)$/.exec(range ?? "")?.[1]);
  if (versions.some((v) => v === undefined) || new Set(versions).size !== 1) {
    throw new Error(`check-engines-floor: ${LIBRARIES.join(", ")} must each state engines.node ">=X.Y.Z", the same; they state ${JSON.stringify(ranges)}`);
  }
  return versions[0];
}

function importDist(name) {
  return import(pathToFileURL(join(root, "packages", name, "dist", "index.js")).href);
}

function vectors(name) {
  return JSON.parse(readFileSync(join(root, "packages", "seed-index-format", "conformance", name), "utf8"));
}

function pointer(value, path) {
  let at = value;
  for (const key of path.split("/").slice(1)) at = at[key.replaceAll("~1", "/").replaceAll("~0", "~")];
  return at;
}

/** Every conformance vector against the dist; returns how many checks ran (throws on the first miss). */
async function conformance(sif, dir) {
  let checks = 0;
  const check = (fn) => {
    fn();
    checks++;
  };
  for (const [index, c] of vectors("records.json").cases.entries()) {
    const file = join(dir, `case-${index}.jsonl`);
    writeFileSync(file, c.file);
    const { outcomes } = await sif.readSeedIndexFile(file);
    check(() => deepStrictEqual(outcomes.map((o) => [o.line, o.byteOffset, o.outcome]), c.expected.map((e) => [e.line, e.byteOffset, e.outcome]), c.name));
    const lineOf = new Map(outcomes.filter((o) => o.outcome === "record").map((o) => [o.record, o.line]));
    if (c.current !== undefined) check(() => deepStrictEqual(sif.currentView(outcomes).map((r) => lineOf.get(r)), c.current, c.name));
    if (c.archival !== undefined) check(() => deepStrictEqual(sif.archivalUnion(outcomes).map((r) => lineOf.get(r)), c.archival, c.name));
    if (c.nextSeq !== undefined) check(() => equal(sif.nextSeq(outcomes), c.nextSeq, c.name));
    for (const p of c.preserved ?? []) check(() => deepStrictEqual(pointer(outcomes[p.line - 1].record, p.pointer), p.value, c.name));
    for (const u of c.upgraded ?? []) check(() => deepStrictEqual(outcomes[u.line - 1].record.spans, u.spans, c.name));
    for (const [i, e] of c.expected.entries()) {
      if (e.errorPaths !== undefined) check(() => ok(e.errorPaths.every((path) => (outcomes[i].errors ?? []).some((err) => err.path === path)), c.name));
    }
  }
  const anchors = vectors("anchors.json");
  for (const v of anchors.valid) {
    check(() => deepStrictEqual(sif.parseAnchor(v.text), { ok: true, anchor: v.anchor }));
    check(() => equal(sif.formatAnchor(v.anchor), v.text));
  }
  for (const v of anchors.invalid) check(() => equal(sif.parseAnchor(v.text).ok, false, v.text));
  for (const c of vectors("block-text.json").cases) {
    check(() => {
      const text = c.rule.startsWith("assistant") ? sif.assistantPartText(c.content) : sif.joinTextParts(c.content);
      equal(text, c.text);
      deepStrictEqual(sif.blockLog(text), { bytes: c.bytes, lines: c.lines });
      equal(sif.sha256Hex(text), c.sha256);
      deepStrictEqual(sif.verifySpanText({ sha256: c.sha256, log: { bytes: c.bytes, lines: c.lines } }, text), { verified: true });
    });
  }
  for (const c of vectors("codes.json").cases) {
    check(() => equal(sif.codeFor(c.blockId), c.code10));
    check(() => equal(sif.codeFor(c.blockId, 12), c.code12));
  }
  const paths = vectors("paths.json");
  for (const c of paths.cases) {
    check(() => equal(sif.seedIndexPath(c.sessionFile, c.sessionId), c.seedIndex));
    check(() => equal(sif.handoffPath(c.sessionFile, c.sessionId), c.handoff));
  }
  for (const id of paths.refused) check(() => ok(throwsWithCode(() => sif.seedIndexPath("/x/s.jsonl", id), "INVALID_SESSION_ID"), id));
  return checks;
}

function throwsWithCode(fn, code) {
  try {
    fn();
    return false;
  } catch (error) {
    return error?.code === code;
  }
}

/** JSON of anything the readers return: Maps and Sets as arrays, so the digest covers them too. */
function stable(value) {
  return JSON.stringify(value, (_key, v) => (v instanceof Map ? [...v.entries()] : v instanceof Set ? [...v] : v));
}

function sha(text) {
  return createHash("sha256").update(text).digest("hex");
}

/** Every Pi session fixture read through the ledger reader, and a seed index written and read back. */
async function reads(lr, sif, dir) {
  const sessionsDir = join(root, "..", "shared", "fixtures", "sessions");
  const files = readdirSync(sessionsDir).filter((f) => f.endsWith(".jsonl")).sort();
  if (files.length === 0) throw new Error(`check-engines-floor: no session fixture in ${sessionsDir}`);
  const sessions = [];
  for (const name of files) {
    const session = await lr.readSession(join(sessionsDir, name));
    sessions.push({ name, entries: session.entries.length, blocks: session.blocks.length, lineage: session.lineage.length, damaged: session.damaged.length, sha256: sha(stable(session)) });
  }
  // The writer: two records appended under the append lock, then the file read back.
  const first = vectors("records.json").cases[0];
  const record = JSON.parse(first.file.split("\n")[0]);
  const seedIndex = join(dir, "written", "seed-index.jsonl");
  await sif.appendRecord(seedIndex, record);
  await sif.appendRecord(seedIndex, { ...record, seq: 1 });
  const { outcomes } = await sif.readSeedIndexFile(seedIndex);
  deepStrictEqual(outcomes.map((o) => o.outcome), ["record", "record"]);
  return { sessions, seedIndex: sha(readFileSync(seedIndex, "utf8")) };
}

async function probe() {
  const dir = mkdtempSync(join(tmpdir(), "engines-floor-"));
  try {
    const sif = await importDist("seed-index-format");
    const lr = await importDist("ledger-reader");
    const checks = await conformance(sif, dir);
    return { node: process.version, conformanceChecks: checks, ...(await reads(lr, sif, dir)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The probe's digest under `command args`; a failure names the Node it ran on and ends the check. */
function runProbe(label, command, args) {
  try {
    return JSON.parse(execFileSync(command, [...args, self, "--probe"], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }));
  } catch (error) {
    console.error(`check-engines-floor: the libraries' dist failed under ${label} (its error is above): ${error.message.split("\n")[0]}`);
    process.exit(1);
  }
}

if (process.argv.includes("--probe")) {
  process.stdout.write(`${JSON.stringify(await probe())}\n`);
} else {
  const version = floor();
  const here = runProbe(`the Node running this (${process.version})`, process.execPath, []);
  // npx runs the registry's `node` package, which brings that Node's own binary as a registry package.
  const there = runProbe(`Node ${version}, their engines floor`, process.platform === "win32" ? "npx.cmd" : "npx", ["-y", `node@${version}`]);
  if (there.node !== `v${version}`) throw new Error(`check-engines-floor: asked for Node ${version}, the probe ran on ${there.node}`);
  deepStrictEqual({ ...there, node: "" }, { ...here, node: "" }, `the libraries behave differently on Node ${version} than on ${here.node}`);
  console.log(
    `check-engines-floor: seed-index-format, durable-fs and ledger-reader dist on Node ${there.node} (their engines floor) and ${here.node}: ` +
      `${there.conformanceChecks} conformance checks passed, ${there.sessions.length} session fixtures read to the same digest, a seed index written and read back alike`,
  );
}
