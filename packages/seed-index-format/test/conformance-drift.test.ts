// The shipped conformance/*.json are exactly what scripts/gen-conformance.mjs (the hand-written cases) writes.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { packageDir } from "./vectors.js";

describe("conformance vectors", () => {
  it("match their generator (run `pnpm --filter @context-fold/seed-index-format gen:conformance` after editing cases)", () => {
    const dir = tempDir("sif-gen-");
    const result = spawnSync(process.execPath, [join(packageDir, "scripts", "gen-conformance.mjs"), dir], { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    const shipped = readdirSync(join(packageDir, "conformance")).sort();
    expect(readdirSync(dir).sort()).toEqual(shipped);
    for (const name of shipped) expect(readFileSync(join(dir, name), "utf8"), name).toBe(readFileSync(join(packageDir, "conformance", name), "utf8"));
  });
});
