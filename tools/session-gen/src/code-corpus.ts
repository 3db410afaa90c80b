// Source files of the fictional project the generated sessions work on: plausible TypeScript, Python,
// Go and Rust, produced from templates and the seeded random source.
import type { SeededRandom } from "./random.js";

export type Language = "ts" | "py" | "go" | "rs";

export interface ProjectFile {
  readonly path: string;
  readonly language: Language;
}

const NOUNS = [
  "ledger", "cursor", "shard", "lease", "bucket", "digest", "span", "frame", "token", "segment", "batch",
  "replica", "queue", "window", "budget", "manifest", "record", "anchor", "offset", "snapshot", "chunk",
  "tenant", "session", "journal", "index", "fold", "handle", "block", "schema", "policy",
];
const VERBS = [
  "resolve", "parse", "encode", "decode", "merge", "split", "flush", "load", "store", "verify", "compact",
  "rotate", "scan", "collect", "render", "retry", "reconcile", "hydrate", "prune", "emit", "normalize",
];

export const PROJECT_FILES: readonly ProjectFile[] = [
  { path: "src/ledger/cursor.ts", language: "ts" },
  { path: "src/ledger/reader.ts", language: "ts" },
  { path: "src/fold/planner.ts", language: "ts" },
  { path: "src/recall/verify.ts", language: "ts" },
  { path: "src/cli/main.ts", language: "ts" },
  { path: "test/cursor.test.ts", language: "ts" },
  { path: "scripts/ingest.py", language: "py" },
  { path: "scripts/report.py", language: "py" },
  { path: "tests/test_ingest.py", language: "py" },
  { path: "cmd/indexer/main.go", language: "go" },
  { path: "internal/shard/lease.go", language: "go" },
  { path: "internal/shard/lease_test.go", language: "go" },
  { path: "crates/hasher/src/lib.rs", language: "rs" },
  { path: "crates/hasher/src/window.rs", language: "rs" },
];

export const NEW_FILES: readonly ProjectFile[] = [
  { path: "src/fold/budget.ts", language: "ts" },
  { path: "src/recall/handles.ts", language: "ts" },
  { path: "scripts/backfill.py", language: "py" },
  { path: "internal/shard/rebalance.go", language: "go" },
  { path: "crates/hasher/src/stream.rs", language: "rs" },
  { path: "test/planner.test.ts", language: "ts" },
  { path: "src/ledger/torn-lines.ts", language: "ts" },
  { path: "tests/test_report.py", language: "py" },
];

export function camel(rng: SeededRandom): string {
  const verb = rng.pick(VERBS);
  const noun = rng.pick(NOUNS);
  return verb + noun.charAt(0).toUpperCase() + noun.slice(1);
}

export function snake(rng: SeededRandom): string {
  return `${rng.pick(VERBS)}_${rng.pick(NOUNS)}`;
}

export function pascal(rng: SeededRandom): string {
  const a = rng.pick(NOUNS);
  const b = rng.pick(NOUNS);
  return a.charAt(0).toUpperCase() + a.slice(1) + b.charAt(0).toUpperCase() + b.slice(1);
}

export function noun(rng: SeededRandom): string {
  return rng.pick(NOUNS);
}

function tsFunction(rng: SeededRandom): string[] {
  const name = camel(rng);
  const type = pascal(rng);
  const field = noun(rng);
  const lines = [
    `export function ${name}(input: ${type}, options: { limit?: number } = {}): ${type}[] {`,
    `  const limit = options.limit ?? ${rng.int(8, 4096)};`,
    `  const out: ${type}[] = [];`,
    `  for (const ${field} of input.${noun(rng)}s) {`,
    `    if (out.length >= limit) break;`,
    `    if (${field}.${noun(rng)}Id === undefined) continue;`,
    `    out.push({ ...${field}, ${noun(rng)}: ${field}.${noun(rng)} + ${rng.int(1, 64)} });`,
    `  }`,
  ];
  if (rng.chance(0.5)) lines.push(`  if (out.length === 0) throw new ${type}Error("no ${field} left", { code: "E_${field.toUpperCase()}_EMPTY" });`);
  lines.push(`  return out;`, `}`, ``);
  return lines;
}

function pyFunction(rng: SeededRandom): string[] {
  const name = snake(rng);
  const field = noun(rng);
  return [
    `def ${name}(rows: list[dict], *, limit: int = ${rng.int(10, 5000)}) -> list[dict]:`,
    `    """${rng.pick(VERBS).replace(/^./, (c) => c.toUpperCase())} the ${field} rows and keep the first \`limit\`."""`,
    `    out: list[dict] = []`,
    `    for row in rows:`,
    `        if len(out) >= limit:`,
    `            break`,
    `        if row.get("${noun(rng)}_id") is None:`,
    `            continue`,
    `        out.append({**row, "${field}": row["${field}"] + ${rng.int(1, 99)}})`,
    `    return out`,
    ``,
    ``,
  ];
}

function goFunction(rng: SeededRandom): string[] {
  const name = pascal(rng);
  const field = noun(rng);
  return [
    `// ${name} ${rng.pick(VERBS)}s every ${field} that is still leased.`,
    `func (s *Store) ${name}(ctx context.Context, limit int) ([]${pascal(rng)}, error) {`,
    `\tif limit <= 0 {`,
    `\t\tlimit = ${rng.int(16, 2048)}`,
    `\t}`,
    `\trows, err := s.db.QueryContext(ctx, "SELECT id, ${field}, updated_at FROM ${field}s WHERE lease > $1 LIMIT $2", time.Now(), limit)`,
    `\tif err != nil {`,
    `\t\treturn nil, fmt.Errorf("${snake(rng)}: %w", err)`,
    `\t}`,
    `\tdefer rows.Close()`,
    `\tvar out []${pascal(rng)}`,
    `\tfor rows.Next() {`,
    `\t\tvar r ${pascal(rng)}`,
    `\t\tif err := rows.Scan(&r.ID, &r.${pascal(rng)}, &r.UpdatedAt); err != nil {`,
    `\t\t\treturn nil, err`,
    `\t\t}`,
    `\t\tout = append(out, r)`,
    `\t}`,
    `\treturn out, rows.Err()`,
    `}`,
    ``,
  ];
}

function rsFunction(rng: SeededRandom): string[] {
  const name = snake(rng);
  const type = pascal(rng);
  return [
    `/// ${rng.pick(VERBS).replace(/^./, (c) => c.toUpperCase())}s a window of ${noun(rng)} bytes.`,
    `pub fn ${name}(buf: &[u8], window: usize) -> Result<Vec<${type}>, HashError> {`,
    `    if window == 0 || window > ${rng.int(64, 65536)} {`,
    `        return Err(HashError::BadWindow(window));`,
    `    }`,
    `    let mut out = Vec::with_capacity(buf.len() / window + 1);`,
    `    for chunk in buf.chunks(window) {`,
    `        let digest = blake3::hash(chunk);`,
    `        out.push(${type} { len: chunk.len(), digest: *digest.as_bytes() });`,
    `    }`,
    `    Ok(out)`,
    `}`,
    ``,
  ];
}

function header(language: Language, rng: SeededRandom): string[] {
  switch (language) {
    case "ts":
      return [
        `// ${rng.pick(VERBS)}s ${noun(rng)}s for the ${noun(rng)} pipeline.`,
        `import { readFile } from "node:fs/promises";`,
        `import type { ${pascal(rng)}, ${pascal(rng)} } from "./types.js";`,
        ``,
      ];
    case "py":
      return [`"""${noun(rng)} tooling."""`, `from __future__ import annotations`, ``, `import json`, `import sys`, ``, ``];
    case "go":
      return [`package ${rng.pick(["shard", "main", "indexer"])}`, ``, `import (`, `\t"context"`, `\t"fmt"`, `\t"time"`, `)`, ``];
    case "rs":
      return [`use crate::error::HashError;`, `use std::io::Read;`, ``];
  }
}

/** A whole source file of roughly `lines` lines. */
export function sourceFile(rng: SeededRandom, language: Language, lines: number): string {
  const out = header(language, rng);
  const gen = { ts: tsFunction, py: pyFunction, go: goFunction, rs: rsFunction }[language];
  while (out.length < lines) out.push(...gen(rng));
  return out.join("\n");
}

/** One function, for edits and writes. */
export function snippet(rng: SeededRandom, language: Language): string {
  return ({ ts: tsFunction, py: pyFunction, go: goFunction, rs: rsFunction }[language])(rng).join("\n");
}
