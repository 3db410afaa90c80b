// Setup file of the extension's test project (root vitest.config.ts): makes Pi's own loader take every
// workspace package from its src/, as vitest's aliases do for the test code itself.
//
// Pi loads the extension with jiti and passes it an alias map for Pi's own packages; jiti resolves
// everything else with the fixed conditions ["node", "import"], so neither vitest's aliases nor Node's
// `--conditions=@context-fold/source` reach it, and `@context-fold/*` landed on each package's dist/ —
// stale as soon as a package's src was edited without a rebuild. jiti does read one resolution setting
// from the environment that Pi's options leave alone: JITI_TSCONFIG_PATHS, a folder whose tsconfig.json
// `paths` it consults before any other resolution.
//
// So each workspace package is bundled from its src/index.ts (esbuild, no type declarations) with the
// other workspace packages left as imports, and a tsconfig.json beside the bundles maps each
// `@context-fold/<name>` to its bundle. Bundles rather than the .ts files themselves: jiti then loads one
// module per package, as from dist/, instead of every source file (several times slower on each fresh
// load of the extension). test/pi-loads-source.test.ts checks, from jiti's own record of what it loaded,
// that no dist/ is used.
//
// The bundles' folder is named by a hash of everything they are made from (every package's src/ and
// package.json, the lockfile that fixes their bundled third-party code, esbuild's version, this file), so
// every test file of a run — and the next run, while nothing changed — uses the same folder. That matters
// beyond the bundling itself: jiti keeps its transform of a file (Babel, seconds for these ~1.5 MB) in a
// cache named by the file's path, so bundles at a fresh path per test file were transformed again by every
// test file, and the cache grew by a copy each time. An edit to any package's src gives a new hash, hence
// new bundles: a stale bundle is never used.
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { build, type Plugin } from "esbuild";

/** The environment variable jiti reads its tsconfig-paths setting from. */
export const JITI_TSCONFIG_PATHS = "JITI_TSCONFIG_PATHS";
/** The name every folder of source bundles starts with (test/pi-loads-source.test.ts looks for it). */
export const SOURCE_BUNDLES_PREFIX = "context-fold-pi-source-";

const root = join(import.meta.dirname, "..", "..", "..", "..");

/** Each workspace package with a src/index.ts: its name and that file. */
function workspacePackages(): { name: string; entry: string }[] {
  const packages = join(root, "packages");
  return readdirSync(packages)
    .sort()
    .map((name) => ({ name, entry: join(packages, name, "src", "index.ts") }))
    .filter((p) => existsSync(p.entry));
}

/** The subpaths a package exports from source (package.json "exports" entries with the source condition). */
function sourceSubpaths(name: string): string[] {
  const exports = (JSON.parse(readFileSync(join(root, "packages", name, "package.json"), "utf8")) as { exports?: Record<string, unknown> }).exports ?? {};
  return Object.entries(exports)
    .filter(([subpath, target]) => subpath !== "." && typeof target === "object" && target !== null && "@context-fold/source" in target)
    .map(([subpath]) => subpath.slice(2));
}

/** A hash of every input of the bundles: each file under the packages' src/ (path and bytes), their manifests, the lockfile, esbuild's version and this file. */
function bundleInputsHash(): string {
  const hash = createHash("sha256");
  const add = (file: string): void => {
    hash.update(`${file.slice(root.length)}\0`);
    hash.update(readFileSync(file));
    hash.update("\0");
  };
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else add(full);
    }
  };
  for (const name of readdirSync(join(root, "packages")).sort()) {
    const dir = join(root, "packages", name);
    if (existsSync(join(dir, "package.json"))) add(join(dir, "package.json"));
    if (existsSync(join(dir, "src"))) walk(join(dir, "src"));
  }
  add(join(root, "pnpm-lock.yaml"));
  add(import.meta.filename);
  hash.update((createRequire(import.meta.url)("esbuild/package.json") as { version: string }).version);
  return hash.digest("hex").slice(0, 24);
}

/** Resolves `@context-fold/<name>[/<subpath>]` to the sibling bundle `./<name>.mjs`, left an import. */
const siblingBundles: Plugin = {
  name: "context-fold-sibling-bundles",
  setup(plugin) {
    plugin.onResolve({ filter: /^@context-fold\/[a-z0-9-]+(\/.*)?$/ }, (args) => ({ path: `./${args.path.split("/")[1] ?? ""}.mjs`, external: true }));
  },
};

/** Bundles every workspace package from src into `dir` and writes the tsconfig mapping names to them (at `final`, where `dir` will be). */
async function writeSourceBundles(dir: string, final: string): Promise<void> {
  const paths: Record<string, string[]> = {};
  await Promise.all(
    workspacePackages().map(async ({ name, entry }) => {
      // Other workspace packages stay imports, of their own bundles beside this one (`./<name>.mjs`, a
      // subpath entry to its package's bundle), so Node itself can load the bundles: jiti imports an .mjs
      // natively when it can, and Pi's extension then gets its packages as from an installed dist/, loaded
      // once per process, while jiti still loads the extension's own modules afresh for every Pi. A
      // package's third-party dependencies are bundled in, since nothing resolves from this folder.
      await build({
        entryPoints: [entry],
        outfile: join(dir, `${name}.mjs`),
        bundle: true,
        format: "esm",
        platform: "node",
        target: "node22",
        plugins: [siblingBundles],
        logLevel: "silent",
      });
      const outfile = join(final, `${name}.mjs`);
      paths[`@context-fold/${name}`] = [outfile];
      // Its subpath entries (`/block-text`, …) to the same bundle: the main entry exports all they do,
      // and one bundle keeps one copy of each module (a second would bring a second of each error class).
      for (const subpath of sourceSubpaths(name)) paths[`@context-fold/${name}/${subpath}`] = [outfile];
    }),
  );
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify({ compilerOptions: { paths: sorted } }, null, 2)}\n`);
}

/** The folder of bundles for the packages' current sources: reused when it exists, else built in a folder of its own and renamed into place whole. */
async function sourceBundles(): Promise<string> {
  const final = join(tmpdir(), `${SOURCE_BUNDLES_PREFIX}${bundleInputsHash()}`);
  if (existsSync(join(final, "tsconfig.json"))) return final;
  // Workers start at once: each builds in its own folder and renames it into place, so none sees a half-written folder;
  // when another worker's rename came first, that folder (the same bytes) stays and this one is dropped.
  const building = mkdtempSync(join(tmpdir(), `context-fold-pi-building-`));
  try {
    await writeSourceBundles(building, final);
    try {
      renameSync(building, final);
    } catch (error) {
      if (!existsSync(join(final, "tsconfig.json"))) throw error;
    }
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return final;
}

const current = process.env[JITI_TSCONFIG_PATHS];
// Kept when this worker already set it (the setup file runs before every test file); anything else,
// a value inherited from the shell included, is replaced: it must not decide what Pi loads here.
if (current === undefined || !basename(current).startsWith(SOURCE_BUNDLES_PREFIX) || !existsSync(join(current, "tsconfig.json"))) {
  process.env[JITI_TSCONFIG_PATHS] = await sourceBundles();
}
