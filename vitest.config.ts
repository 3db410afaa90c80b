// One root config, one project per workspace member. Tests import workspace packages from source,
// so a change is tested without a rebuild. The Pi-extension tests also hand our extension to Pi's own
// loader (jiti), which resolves packages itself, through neither these aliases nor export conditions:
// that project's setup file (apps/pi-extension/test/support/pi-loads-source.ts) points jiti at the
// packages' src too, instead of a possibly stale dist.
import { readdirSync, existsSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "vitest/config";

const root = import.meta.dirname;
const members = ["packages", "apps", "tools"].flatMap((group) =>
  existsSync(join(root, group))
    ? readdirSync(join(root, group))
        .map((name) => join(group, name))
        .filter((dir) => existsSync(join(root, dir, "test")))
    : [],
);

// Exact-match aliases, so subpath exports (e.g. `/schema.json`) still resolve through package.json.
const alias: { find: RegExp; replacement: string }[] = [];
for (const name of existsSync(join(root, "packages")) ? readdirSync(join(root, "packages")) : []) {
  const src = join(root, "packages", name, "src", "index.ts");
  if (existsSync(src)) alias.push({ find: new RegExp(`^@context-fold/${name}$`), replacement: src });
}
for (const name of existsSync(join(root, "tools")) ? readdirSync(join(root, "tools")) : []) {
  const src = join(root, "tools", name, "src", "index.ts");
  if (existsSync(src)) alias.push({ find: new RegExp(`^@context-fold/${name}$`), replacement: src });
}

export default defineConfig({
  resolve: { alias },
  test: {
    // CI also writes a JSON report so .ci/run can print one "N passed, N failed" line.
    ...(process.env["CI"] ? { reporters: ["default", "json"], outputFile: { json: join(root, ".ci-out", "vitest.json") } } : {}),
    globalSetup: [join(root, "tools/test-support/src/shared-guard.ts")],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: members.map((dir) => ({
      extends: true,
      test: {
        name: dir.split("/")[1],
        root: join(root, dir),
        include: ["test/**/*.test.ts"],
        ...(dir === "apps/pi-extension" ? { setupFiles: [join(root, dir, "test/support/pi-loads-source.ts")] } : {}),
      },
    })),
  },
});
