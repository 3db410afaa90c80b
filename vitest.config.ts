// One root config, one project per workspace member. Tests import workspace packages from source,
// so a change is tested without a rebuild. The Pi-extension tests also hand our extension to Pi's own
// loader (jiti), which resolves packages itself, through neither these aliases nor export conditions:
// that project's setup file (apps/pi-extension/test/support/pi-loads-source.ts) points jiti at the
// packages' src too, instead of a possibly stale dist.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
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
// A package's subpath entries (package.json "exports" with the source condition, e.g. `/block-text`) from src too.
for (const name of existsSync(join(root, "packages")) ? readdirSync(join(root, "packages")) : []) {
  const manifest = join(root, "packages", name, "package.json");
  if (!existsSync(manifest)) continue;
  const exports = (JSON.parse(readFileSync(manifest, "utf8")) as { exports?: Record<string, unknown> }).exports ?? {};
  for (const [subpath, target] of Object.entries(exports)) {
    const source = typeof target === "object" && target !== null ? (target as Record<string, unknown>)["@context-fold/source"] : undefined;
    if (subpath === "." || typeof source !== "string") continue;
    alias.push({ find: new RegExp(`^@context-fold/${name}/${subpath.slice(2)}$`), replacement: join(root, "packages", name, source) });
  }
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
    // One worker per core. Vitest's own default for a run is one fewer than the cores, which on the
    // two-core machines this suite runs on (CI included) is a single worker: every file one after
    // another, with one core idle while a test waits on a child process, a server or the disk.
    // `--maxWorkers` on the command line still overrides this.
    maxWorkers: availableParallelism(),
    // A worker runs the test files of a project one after another in one process, rather than a fresh
    // process per file: importing Pi (most files write their sessions with Pi's SessionManager) and the
    // workspace sources once per worker instead of once per file was most of the suite's import time.
    // The setup file file-isolation.ts undoes what a file changed in the process (environment, exit
    // code, cwd, timers, spies) and removes its temp directories when it ends.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    projects: members.map((dir) => ({
      extends: true,
      test: {
        name: dir.split("/")[1],
        root: join(root, dir),
        include: ["test/**/*.test.ts"],
        setupFiles: [
          ...(dir === "apps/pi-extension" ? [join(root, dir, "test/support/pi-loads-source.ts")] : []),
          join(root, "tools/test-support/src/file-isolation.ts"),
        ],
      },
    })),
  },
});
