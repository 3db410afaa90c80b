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
// So, once per test worker, each workspace package is bundled from its src/index.ts (esbuild: a fraction
// of a second for all of them, no type declarations) into a folder of the worker's own, with the other
// workspace packages left as imports, and a tsconfig.json there maps each `@context-fold/<name>` to its
// bundle. Bundles rather than the .ts files themselves: jiti then loads one module per package, as from
// dist/, instead of every source file (several times slower on each fresh load of the extension).
// test/pi-loads-source.test.ts checks, from jiti's own record of what it loaded, that no dist/ is used.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { build } from "esbuild";

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

/** Bundles every workspace package from src into `dir` and writes the tsconfig mapping names to them. */
async function writeSourceBundles(dir: string): Promise<void> {
  const paths: Record<string, string[]> = {};
  await Promise.all(
    workspacePackages().map(async ({ name, entry }) => {
      const outfile = join(dir, `${name}.mjs`);
      // Other workspace packages stay imports (resolved back through these paths, to their own bundles);
      // a package's third-party dependencies are bundled in, since nothing resolves from this folder.
      await build({ entryPoints: [entry], outfile, bundle: true, format: "esm", platform: "node", target: "node22", external: ["@context-fold/*"], logLevel: "silent" });
      paths[`@context-fold/${name}`] = [outfile];
      // Its subpath entries (`/block-text`, …) to the same bundle: the main entry exports all they do,
      // and one bundle keeps one copy of each module (a second would bring a second of each error class).
      for (const subpath of sourceSubpaths(name)) paths[`@context-fold/${name}/${subpath}`] = [outfile];
    }),
  );
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(dir, "tsconfig.json"), `${JSON.stringify({ compilerOptions: { paths: sorted } }, null, 2)}\n`);
}

const current = process.env[JITI_TSCONFIG_PATHS];
// Kept when this worker already wrote it (the setup file runs before every test file); anything else,
// a value inherited from the shell included, is replaced: it must not decide what Pi loads here.
if (current === undefined || !basename(current).startsWith(SOURCE_BUNDLES_PREFIX) || !existsSync(join(current, "tsconfig.json"))) {
  // A folder of this worker's own: workers start at once and must not write one shared file.
  const dir = mkdtempSync(join(tmpdir(), SOURCE_BUNDLES_PREFIX));
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  await writeSourceBundles(dir);
  process.env[JITI_TSCONFIG_PATHS] = dir;
}
