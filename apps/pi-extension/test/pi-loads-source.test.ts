// Pi loads the extension through its own loader (jiti), which resolves our workspace packages itself, not
// through vitest's aliases. test/support/pi-loads-source.ts (a setup file of this project) hands jiti a
// bundle of each package made from its src/ when the worker starts; this test reads jiti's own record of
// the files it loaded (its debug log) while Pi loads the extension from its package directory, and fails
// if any workspace package came from a dist/ — the build an edit to src does not reach, so stale code
// would be what the extension is tested with — or from anywhere but those source bundles.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { DefaultResourceLoader } from "@earendil-works/pi-coding-agent";
import { tempDir } from "@context-fold/test-support";
import { expect, test, vi } from "vitest";
import { PACKAGE_DIR } from "./support/headless-pi.js";
import { SOURCE_BUNDLES_PREFIX } from "./support/pi-loads-source.js";

const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { dependencies: Record<string, string> };
const workspace = Object.keys(manifest.dependencies)
  .filter((name) => name.startsWith("@context-fold/"))
  .map((name) => name.slice("@context-fold/".length));
const dir = tempDir("cf-pi-loads-source-");

/** Where jiti's log lines say each workspace package came from: `<name>/dist`, `<name>/src` or `<name>/source-bundle`. */
function loadedFrom(lines: readonly string[]): Set<string> {
  const seen = new Set<string>();
  // The log is coloured: strip the ANSI escapes first.
  const plain = lines.join("\n").replace(/\x1b\[[0-9;]*m/g, "");
  for (const m of plain.matchAll(/(?:packages|@context-fold)\/([a-z0-9-]+)\/(src|dist)\//g)) seen.add(`${m[1]}/${m[2]}`);
  const bundle = new RegExp(`${SOURCE_BUNDLES_PREFIX}[A-Za-z0-9]+/([a-z0-9-]+)\\.mjs`, "g");
  for (const m of plain.matchAll(bundle)) seen.add(`${m[1]}/source-bundle`);
  return seen;
}

test("Pi's loader takes every workspace package from a bundle of its src/, none from dist/", async () => {
  expect(workspace.length).toBeGreaterThan(0);
  const lines: string[] = [];
  const log = vi.spyOn(console, "log").mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
  const before = process.env["JITI_DEBUG"];
  process.env["JITI_DEBUG"] = "1";
  process.env["PI_CODING_AGENT_DIR"] = dir;
  try {
    // A cwd of its own: Pi keeps loaded extensions per cwd, so this load goes through jiti afresh.
    const loader = new DefaultResourceLoader({ cwd: dir, agentDir: dir, additionalExtensionPaths: [PACKAGE_DIR] });
    await loader.reload();
    expect(loader.getExtensions().errors).toEqual([]);
  } finally {
    log.mockRestore();
    if (before === undefined) delete process.env["JITI_DEBUG"];
    else process.env["JITI_DEBUG"] = before;
  }
  const seen = loadedFrom(lines);
  expect([...seen].filter((where) => where.endsWith("/dist"))).toEqual([]);
  for (const name of workspace) expect(seen, `${name} loaded by Pi`).toContain(`${name}/source-bundle`);
});

test("the log reader tells a source bundle from src and dist (a path of each, coloured as jiti prints it)", () => {
  const seen = loadedFrom([
    "\x1b[90m[jiti] [transpile] /w/packages/ledger-reader/src/blocks.ts (3ms)\x1b[39m",
    "[jiti] [native] [import] /w/packages/extractors/dist/index.js",
    `[jiti] [cache] [hit] /tmp/${SOURCE_BUNDLES_PREFIX}Ab12Cd/recall-engine.mjs ~> /tmp/jiti/recall-engine.1a2b.mjs`,
  ]);
  expect([...seen].sort()).toEqual(["extractors/dist", "ledger-reader/src", "recall-engine/source-bundle"]);
});
