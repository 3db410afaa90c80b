// Each published package's public exports, snapshotted: an export that disappears or is renamed is a
// breaking change of that package and must show up in review (update with `vitest -u`).
import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../../..");
const packages = readdirSync(join(root, "packages")).sort();

describe("public exports", () => {
  for (const name of packages) {
    it(`@context-fold/${name}`, async () => {
      const mod = (await import(join(root, "packages", name, "src", "index.ts"))) as Record<string, unknown>;
      const lines = Object.keys(mod)
        .sort()
        .map((key) => `${key}: ${typeof mod[key]}`);
      await expect(`${lines.join("\n")}\n`).toMatchFileSnapshot(join(import.meta.dirname, "__exports__", `${name}.txt`));
    });
  }
});
