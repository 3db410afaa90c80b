// tools/check-layers.mjs against small workspaces written here: the runtime arrows tools/layers.mjs
// forbids are reported (by manifest and by import), test-only use through a devDependency is not, and
// a package the map does not name is an error rather than a package nothing checks.
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "../src/temp-dir.js";

const script = resolve(import.meta.dirname, "../../check-layers.mjs");

type Files = Record<string, string>;
function workspace(files: Files): string {
  const root = tempDir("cf-layers-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}
function manifest(name: string, deps: Record<string, string> = {}, devDeps: Record<string, string> = {}): string {
  return JSON.stringify({ name: `@context-fold/${name}`, dependencies: deps, devDependencies: devDeps });
}
function check(root: string): { status: number | null; out: string } {
  const run = spawnSync(process.execPath, [script, root], { encoding: "utf8" });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

/** The client and the bank, each importing only the shared API leaf. */
const clean: Files = {
  "packages/hindsight-api/package.json": manifest("hindsight-api"),
  "packages/hindsight-api/src/index.ts": "export const PATCH_MIN_VERSION = \"0.8.2\";\n",
  "packages/hindsight-local/package.json": manifest("hindsight-local", { "@context-fold/hindsight-api": "workspace:^" }),
  "packages/hindsight-local/src/index.ts": "export { PATCH_MIN_VERSION } from \"@context-fold/hindsight-api\";\n",
  "packages/memory-gardener-client/package.json": manifest("memory-gardener-client", { "@context-fold/hindsight-api": "workspace:^" }, { "@context-fold/hindsight-local": "workspace:^" }),
  "packages/memory-gardener-client/src/index.ts": "export { PATCH_MIN_VERSION } from \"@context-fold/hindsight-api\";\n",
  "packages/memory-gardener-client/test/bank.test.ts": "import { startLocalBank } from \"@context-fold/hindsight-local\";\n",
};

describe("check-layers", () => {
  test("the repository itself passes", () => {
    const run = check(resolve(import.meta.dirname, "../../.."));
    expect(run.out).toContain("Layering check: ok");
    expect(run.status).toBe(0);
  });

  test("the client using the bank in its tests only (a devDependency) passes", () => {
    const run = check(workspace(clean));
    expect(run.out).toContain("Layering check: ok");
    expect(run.status).toBe(0);
  });

  test("the gardener client importing the local bank at runtime fails", () => {
    const run = check(workspace({ ...clean, "packages/memory-gardener-client/src/client.ts": "import { versionAtLeast } from \"@context-fold/hindsight-local\";\n" }));
    expect(run.status).toBe(1);
    expect(run.out).toContain("packages/memory-gardener-client/src/client.ts imports @context-fold/hindsight-local");
  });

  test("the gardener client depending on the local bank in its manifest fails", () => {
    const deps = { "@context-fold/hindsight-api": "workspace:^", "@context-fold/hindsight-local": "workspace:^" };
    const run = check(workspace({ ...clean, "packages/memory-gardener-client/package.json": manifest("memory-gardener-client", deps) }));
    expect(run.status).toBe(1);
    expect(run.out).toContain("packages/memory-gardener-client/package.json depends on @context-fold/hindsight-local");
  });

  test("the local bank importing the client fails too (neither depends on the other)", () => {
    const run = check(workspace({ ...clean, "packages/hindsight-local/src/x.ts": "export { HindsightClient } from \"@context-fold/memory-gardener-client\";\n" }));
    expect(run.status).toBe(1);
    expect(run.out).toContain("packages/hindsight-local/src/x.ts imports @context-fold/memory-gardener-client");
  });

  test("a package the layer map does not name fails", () => {
    const run = check(workspace({ ...clean, "packages/newcomer/package.json": manifest("newcomer"), "packages/newcomer/src/index.ts": "export {};\n" }));
    expect(run.status).toBe(1);
    expect(run.out).toContain("packages/newcomer has no entry in tools/layers.mjs");
  });
});
