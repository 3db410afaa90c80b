// Pi loads the extension through its own loader (jiti), which resolves our workspace packages the way
// Node does from the extension's folder, not through vitest's aliases. These tests run with the
// `@context-fold/source` condition (vitest.config.ts), so that resolution lands on each package's src:
// editing a package and running these tests tests the edit, never a stale dist/.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { describe, expect, test } from "vitest";
import { PACKAGE_DIR } from "./support/headless-pi.js";

const manifest = JSON.parse(readFileSync(join(PACKAGE_DIR, "package.json"), "utf8")) as { dependencies: Record<string, string> };
const workspace = Object.keys(manifest.dependencies).filter((name) => name.startsWith("@context-fold/"));

describe("the packages Pi loads beside the extension", () => {
  test("the extension depends on workspace packages", () => {
    expect(workspace.length).toBeGreaterThan(0);
  });
  const require = createRequire(join(PACKAGE_DIR, "package.json"));
  for (const name of workspace) {
    test(`${name} resolves to its src, not dist`, () => {
      const resolved = relative(join(PACKAGE_DIR, "..", ".."), require.resolve(name)).split("\\").join("/");
      expect(resolved).toBe(`packages/${name.slice("@context-fold/".length)}/src/index.ts`);
    });
  }
});
