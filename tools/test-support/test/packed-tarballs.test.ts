// Every package as `pnpm pack` ships it: a LICENSE inside, the metadata a registry page shows, and
// `^` ranges for what it needs at run time (workspace links become ^version when packed).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../src/temp-dir.js";

const root = resolve(import.meta.dirname, "../../..");
const published = ["packages", "apps"].flatMap((group) => readdirSync(join(root, group)).sort().map((name) => join(group, name)));

/** `pnpm pack` of one package into `dest`; the tarball's path. */
function pack(dir: string, dest: string): string {
  const r = spawnSync("npx", ["-y", "pnpm@10.34.8", "pack", "--pack-destination", dest, "--json"], { cwd: join(root, dir), encoding: "utf8" });
  if (r.status !== 0) throw new Error(`pnpm pack in ${dir} failed: ${r.stderr}`);
  const doc = JSON.parse(r.stdout) as { filename: string };
  return doc.filename;
}

describe("packed tarballs", () => {
  const dest = tempDir("packed-");
  for (const dir of published) {
    it(`${dir} packs with a LICENSE, repository, homepage, bugs, keywords and ^ ranges`, () => {
      const tarball = pack(dir, dest);
      const list = spawnSync("tar", ["-tzf", tarball], { encoding: "utf8" });
      expect(list.status).toBe(0);
      const entries = list.stdout.split("\n");
      expect(entries).toContain("package/LICENSE");
      const manifest = spawnSync("tar", ["-xzOf", tarball, "package/package.json"], { encoding: "utf8" });
      const pkg = JSON.parse(manifest.stdout) as Record<string, unknown> & { dependencies?: Record<string, string> };
      expect(pkg["license"]).toBe("MIT");
      for (const field of ["repository", "homepage", "bugs", "keywords"]) expect(pkg[field], field).toBeDefined();
      for (const [name, range] of Object.entries(pkg.dependencies ?? {})) expect(range, name).toMatch(/^\^\d/);
      const license = spawnSync("tar", ["-xzOf", tarball, "package/LICENSE"], { encoding: "utf8" }).stdout;
      expect(license).toContain("Copyright (c) 2026 context-fold contributors");
      expect(license).toBe(readFileSync(join(root, "LICENSE"), "utf8"));
    });
  }

  it("TypeBox is bundled into the contract package, not also a runtime dependency", () => {
    const pkg = JSON.parse(readFileSync(join(root, "packages/seed-index-format/package.json"), "utf8")) as { dependencies?: Record<string, string> };
    expect(pkg.dependencies?.["typebox"]).toBeUndefined();
  });
});
