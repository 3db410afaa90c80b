// Every package as `pnpm pack` ships it: a LICENSE inside, the metadata a registry page shows, and
// `^` ranges for what it needs at run time (workspace links become ^version when packed).
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../src/temp-dir.js";

const root = resolve(import.meta.dirname, "../../..");
const published = ["packages", "apps"].flatMap((group) => readdirSync(join(root, group)).sort().map((name) => join(group, name)));

/**
 * `pnpm pack` of every package in `dirs` into `dest`, in one pnpm run (`-r` over exactly those packages:
 * each is packed as `pnpm pack` in its folder packs it, at one pnpm start instead of one per package);
 * each package folder's tarball path.
 */
function packAll(dirs: readonly string[], dest: string): Map<string, string> {
  const filters = dirs.flatMap((dir) => ["--filter", `./${dir}`]);
  const r = spawnSync("npx", ["-y", "pnpm@10.34.8", "-r", ...filters, "pack", "--pack-destination", dest, "--json"], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`pnpm pack failed: ${r.stderr}`);
  const byName = new Map((JSON.parse(r.stdout) as { name: string; filename: string }[]).map((doc) => [doc.name, doc.filename]));
  const tarballs = new Map<string, string>();
  for (const dir of dirs) {
    const { name } = JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as { name: string };
    const tarball = byName.get(name);
    if (tarball === undefined) throw new Error(`pnpm pack made no tarball for ${dir} (${name})`);
    tarballs.set(dir, tarball);
  }
  return tarballs;
}

describe("packed tarballs", () => {
  const dest = tempDir("packed-");
  let tarballs = new Map<string, string>();
  beforeAll(() => {
    tarballs = packAll(published, dest);
  });
  for (const dir of published) {
    it(`${dir} packs with a LICENSE, repository, homepage, bugs, keywords and ^ ranges`, () => {
      const tarball = tarballs.get(dir) ?? "";
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
