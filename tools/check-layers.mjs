#!/usr/bin/env node
// Mechanical layering check (architecture.md): a package may import only the workspace packages below it,
// never an app or a tool, and no module graph may contain an import cycle. Exits 1 on any violation.
// Runtime arrows only: a package's devDependencies (its tests) may use any package, as the gardener
// client's tests use the local bank. An optional argument names another workspace root (its tests).
import { readFileSync, readdirSync, statSync, existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { layers } from "./layers.mjs";

const root = resolve(process.argv[2] ?? join(import.meta.dirname, ".."));
const problems = [];

// 0. Every package has a place in the map: one left out would be checked by nothing below.
for (const name of existsSync(join(root, "packages")) ? readdirSync(join(root, "packages")) : []) {
  if (existsSync(join(root, "packages", name, "package.json")) && !Object.hasOwn(layers, name)) {
    problems.push(`packages/${name} has no entry in tools/layers.mjs: say which packages it may import`);
  }
}

function tsFiles(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) return tsFiles(full);
    return full.endsWith(".ts") && !full.endsWith(".d.ts") ? [full] : [];
  });
}

const importPattern = /(?:import|export)\s[^;]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;
function importsOf(file) {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(importPattern)].map((m) => m[1] ?? m[2]);
}

// 1. Package manifests and source imports respect the layers.
for (const [pkg, allowed] of Object.entries(layers)) {
  const dir = join(root, "packages", pkg);
  if (!existsSync(dir)) continue;
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  for (const dep of Object.keys({ ...manifest.dependencies, ...manifest.peerDependencies })) {
    if (!dep.startsWith("@context-fold/")) continue;
    const name = dep.slice("@context-fold/".length);
    if (!allowed.includes(name)) problems.push(`packages/${pkg}/package.json depends on ${dep}: not allowed below ${pkg}`);
  }
  for (const file of tsFiles(join(dir, "src"))) {
    for (const spec of importsOf(file)) {
      const where = relative(root, file);
      if (spec.startsWith("@context-fold/")) {
        const name = spec.slice("@context-fold/".length).split("/")[0];
        if (!allowed.includes(name)) problems.push(`${where} imports ${spec}: ${pkg} may import only ${allowed.join(", ") || "no workspace package"}`);
      } else if (spec.startsWith(".")) {
        const target = resolve(dirname(file), spec);
        if (!target.startsWith(join(dir, "src"))) problems.push(`${where} imports ${spec}: outside its own package`);
      }
    }
  }
}

// 2. No import cycles inside any workspace member (relative imports, .js → .ts).
function cyclesIn(files) {
  const graph = new Map();
  for (const file of files) {
    const deps = importsOf(file)
      .filter((s) => s.startsWith("."))
      .map((s) => resolve(dirname(file), s).replace(/\.js$/, ".ts"))
      .filter((t) => graph.has(t) || files.includes(t));
    graph.set(file, deps);
  }
  let counter = 0;
  const index = new Map(), low = new Map(), stack = [], onStack = new Set(), found = [];
  const visit = (v) => {
    index.set(v, counter); low.set(v, counter); counter++; stack.push(v); onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) === index.get(v)) {
      const scc = [];
      let w;
      do { w = stack.pop(); onStack.delete(w); scc.push(w); } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc);
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}
for (const group of ["packages", "apps", "tools"]) {
  const gdir = join(root, group);
  if (!existsSync(gdir)) continue;
  for (const member of readdirSync(gdir)) {
    const files = tsFiles(join(gdir, member, "src"));
    for (const scc of cyclesIn(files)) problems.push(`import cycle in ${group}/${member}: ${scc.map((f) => relative(root, f)).join(" → ")}`);
  }
}

if (problems.length > 0) {
  console.error(`Layering check failed (${problems.length}):\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.exit(1);
}
console.log("Layering check: ok (layers respected, no import cycles)");
