#!/usr/bin/env node
// Splits a bench CPU profile by turn: for each turn, the sampled time whose stack holds a frame of each
// category (our code, Pi's context copy, GC, …), then p50 / mean / p95 over the turns. A turn's costs
// are not in one place in a live Pi (Pi's work and ours interleave), so a whole-run profile's totals
// cannot say what a typical (p50) turn pays for; this does.
//
//   node tools/profile-by-turn.mjs <profile.cpuprofile> <turns.json> [--fn name,name,…]
//
// turns.json: a pi-turns dump (BENCH_PI_TURNS_DUMP: `turnMicros`) or a turn-replay dump
// (BENCH_TURN_REPLAY_DUMP: entries with `at`), both on the profile's clock (µs). `--fn`: more
// categories, one per function name. Samples are wall-clock: on a loaded machine every figure grows
// with the load, so compare categories within one run, not across runs.
import { readFileSync } from "node:fs";

const [profilePath, turnsPath, ...rest] = process.argv.slice(2);
if (profilePath === undefined || turnsPath === undefined) {
  console.error("usage: node tools/profile-by-turn.mjs <profile.cpuprofile> <turns.json> [--fn name,name,…]");
  process.exit(2);
}
const fnAt = rest.indexOf("--fn");
const extraNames = fnAt === -1 ? [] : (rest[fnAt + 1] ?? "").split(",").filter((name) => name !== "");

const profile = JSON.parse(readFileSync(profilePath, "utf8"));
const dump = JSON.parse(readFileSync(turnsPath, "utf8"));
const bounds = Array.isArray(dump) ? dump.map((turn) => turn.at) : dump.turnMicros;

const categories = [
  ...extraNames.map((name) => [name, (frame) => frame.functionName === name]),
  ["context-fold", (frame) => frame.url.includes("/apps/pi-extension/") || frame.url.includes("/packages/")],
  ["structuredClone", (frame) => frame.functionName === "structuredClone"],
  ["Pi extension runner", (frame) => frame.url.includes("core/extensions/")],
  ["spawn", (frame) => frame.functionName === "spawn"],
  ["bench", (frame) => frame.url.includes("tools/bench/")],
  ["garbage collector", (frame) => frame.functionName === "(garbage collector)"],
  ["idle", (frame) => frame.functionName === "(idle)"],
];

const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
/** The categories whose frames are on a node's stack, once per node. */
const categoriesOf = new Map();
function stackCategories(id) {
  let found = categoriesOf.get(id);
  if (found !== undefined) return found;
  found = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const frame = nodes.get(at).callFrame;
    for (const [name, test] of categories) if (test(frame)) found.add(name);
  }
  categoriesOf.set(id, found);
  return found;
}

const names = ["total", ...categories.map(([name]) => name)];
const perTurn = bounds.map(() => Object.fromEntries(names.map((name) => [name, 0])));
let time = profile.startTime;
let turn = 0;
for (let i = 0; i < profile.samples.length && turn < bounds.length; i++) {
  time += profile.timeDeltas[i] ?? 0;
  while (turn < bounds.length && time > bounds[turn][1]) turn++;
  if (turn >= bounds.length || time < bounds[turn][0]) continue;
  // A sample stands for the time until the next one.
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  const row = perTurn[turn];
  row.total += ms;
  for (const name of stackCategories(profile.samples[i])) row[name] += ms;
}

const quantile = (values, q) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
};
console.log(`${String(bounds.length)} turns; sampled ms per turn (a sample counts in every category on its stack)`);
console.log(`${"category".padEnd(22)}${"p50".padStart(9)}${"mean".padStart(9)}${"p95".padStart(9)}`);
for (const name of names) {
  const values = perTurn.map((row) => row[name]);
  const mean = values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  console.log(`${name.padEnd(22)}${quantile(values, 0.5).toFixed(2).padStart(9)}${mean.toFixed(2).padStart(9)}${quantile(values, 0.95).toFixed(2).padStart(9)}`);
}
