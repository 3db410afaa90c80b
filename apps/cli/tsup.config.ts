import { readFileSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { defineConfig, type Options } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

/** The CLI's version (its package.json's), written into the build as CONTEXT_FOLD_VERSION (src/version.ts). */
const VERSION = (JSON.parse(readFileSync(new URL("package.json", import.meta.url), "utf8")) as { version: string }).version;

/** The one-shot search's bundle (src/recall-one-shot.ts), beside the split build's files in dist/. */
const ONE_SHOT = "recall-one-shot.js";
/** The history search's bundle (src/recall-sessions-one-shot.ts), likewise. */
const SESSIONS_ONE_SHOT = "recall-sessions-one-shot.js";

/** main.ts imports the one-shot bundles by their paths at run time: the split build leaves them alone. */
const oneShotExternal: Plugin = {
  name: "one-shot-external",
  setup(build) {
    build.onResolve({ filter: /^\.\/recall(?:-sessions)?-one-shot\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};

const BUILTIN = new RegExp(`^(?:node:.+|${builtinModules.map((name) => name.replace(/[/\\^$*+?.()|[\]{}]/g, "\\$&")).join("|")})$`);

/** Built-in modules every search uses (taken as the bundle loads); any other is loaded on its first call. */
const EAGER_BUILTINS = new Set(["node:fs", "node:path"]);

/**
 * Node's built-in modules taken with `process.getBuiltinModule` instead of an ES module import: importing
 * one builds a facade of all its exports, and node:fs's reads its lazily loaded stream classes (some 15 ms
 * of CPU, half a bare Node start). Each module becomes its exports read off the CommonJS object, marked
 * pure, so the bundle keeps only the names it uses; a name the module lacks fails the build. Past fs and
 * path, a module's functions (lower-case names: not classes) are loaded on their first call: node:crypto
 * alone (with the stream classes it loads) costs a start some 10 ms, and a search that reads no text, or
 * opens no ledger, never needs it, nor zlib, readline, os or fs/promises.
 */
const builtinsWithoutFacade: Plugin = {
  name: "builtins-without-facade",
  setup(build) {
    build.onResolve({ filter: BUILTIN }, (args) => ({ path: args.path.startsWith("node:") ? args.path : `node:${args.path}`, namespace: "builtin" }));
    build.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => {
      const exports = process.getBuiltinModule(args.path) as Record<string, unknown>;
      const names = Object.keys(exports).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== "default");
      const eager = EAGER_BUILTINS.has(args.path);
      const lines = eager
        ? [`const m = /* @__PURE__ */ process.getBuiltinModule(${JSON.stringify(args.path)});`, "const get = (name) => m[name];", "export default m;"]
        : [`let loaded;`, `const load = () => (loaded ??= process.getBuiltinModule(${JSON.stringify(args.path)}));`, "const get = (name) => load()[name];", "export default /* @__PURE__ */ load();"];
      for (const name of names) {
        const lazy = !eager && typeof exports[name] === "function" && /^[a-z]/.test(name);
        lines.push(lazy ? `export function ${name}(...args) { return load().${name}(...args); }` : `export const ${name} = /* @__PURE__ */ get(${JSON.stringify(name)});`);
      }
      return { contents: lines.join("\n"), loader: "js" };
    });
  },
};

/** The seed index's record reader for the history search's bundle: a CommonJS file of its own beside it (see seedIndexLight). */
const SEED_READER = "recall-sessions-seed-reader";

/**
 * The history search's bundle takes the seed-index-format package's main entry through this module: its
 * light parts (hashing, paths, anchors, the union of records) as they are, and its record reader (which
 * loads typebox and the records' schemas) from a file of its own (SEED_READER, CommonJS: required, not
 * imported, as classifyLine is called synchronously) on the first call of one of its functions, which
 * only a search reading a session's seed index makes. Bundled in, that code was nearly two thirds of the
 * bundle's bytes, which every history search decoded, hashed and took the compile cache of (some 60 ms
 * of CPU). A name the bundle imports that this module lacks fails the build.
 */
const SEED_INDEX_SRC = new URL("../../packages/seed-index-format/src/", import.meta.url).pathname;
const seedIndexLight: Plugin = {
  name: "seed-index-light",
  setup(build) {
    build.onResolve({ filter: /^@context-fold\/seed-index-format$/ }, () => ({ path: "seed-index-format", namespace: "seed-index-light" }));
    build.onLoad({ filter: /.*/, namespace: "seed-index-light" }, () => ({
      contents: [
        `export * from "${SEED_INDEX_SRC}block-text.ts";`,
        `export * from "${SEED_INDEX_SRC}paths.ts";`,
        `export * from "${SEED_INDEX_SRC}anchors.ts";`,
        `export * from "${SEED_INDEX_SRC}union.ts";`,
        "let loaded;",
        `const reader = () => (loaded ??= process.getBuiltinModule("node:module").createRequire(import.meta.url)("./${SEED_READER}.cjs"));`,
        "export function classifyLine(...args) { return reader().classifyLine(...args); }",
        "export function readSeedIndexFile(...args) { return reader().readSeedIndexFile(...args); }",
        // Span recall reads the seed index lean (a long record's spans left in the file): the same file, on first call.
        "export function readSeedIndexFileLean(...args) { return reader().readSeedIndexFileLean(...args); }",
        "export function forEachSpan(...args) { return reader().forEachSpan(...args); }",
      ].join("\n"),
      loader: "js",
      resolveDir: SEED_INDEX_SRC,
    }));
  },
};

/**
 * A bundle's file left ASCII, once tsup has written it: a character esbuild keeps as it is (one inside a
 * regular expression literal) becomes its \\u escape, which means the same there as in a string or a
 * template. One non-ASCII byte makes Node decode the whole file into a two-byte string.
 */
function asciiOutput(file: string): () => Promise<void> {
  return () => {
    const path = new URL(`dist/${file}`, import.meta.url).pathname;
    const text = readFileSync(path, "utf8");
    const ascii = text.replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
    if (ascii !== text) writeFileSync(path, ascii);
    return Promise.resolve();
  };
}

export default defineConfig([
  // Split into chunks so each command module's dynamic import (commands/index.ts) loads only that command's
  // code: the binary's start does not parse the other commands.
  sharedConfig(["src/main.ts", "src/index.ts"], {
    banner: { js: "#!/usr/bin/env node" },
    splitting: true,
    // Both builds write dist/ at once: this one's clean leaves the other's file.
    clean: [`!${ONE_SHOT}`, `!${ONE_SHOT}.map`, `!${SESSIONS_ONE_SHOT}`, `!${SESSIONS_ONE_SHOT}.map`, `!${SEED_READER}.cjs`, `!${SEED_READER}.cjs.map`],
    esbuildPlugins: [oneShotExternal],
    define: { CONTEXT_FOLD_VERSION: JSON.stringify(VERSION) },
  }),
  // The one-shot search as one file: its CLI modules and the recall-engine, ledger-reader and seed-index-format
  // code it reaches through their subpath entries, compiled from their sources (only what it uses), so a
  // warm search loads two modules (main.js and this) instead of some twenty. The packages' main entries
  // stay imports of their own (none is reached on this path); re2js is loaded from the CLI's own dependency
  // when a pattern is first compiled.
  // The history search as one file (src/recall-sessions-one-shot.ts): the recall command and the packages'
  // main entries it reaches, compiled from their sources, so a `recall --sessions` process loads two
  // modules (main.js and this). Packages it does not reach on this path stay imports of their own.
  sharedConfig({ "recall-sessions-one-shot": "src/recall-sessions-one-shot.ts" }, {
    dts: false,
    removeNodeProtocol: false,
    clean: false,
    noExternal: [/^@context-fold\//],
    esbuildPlugins: [seedIndexLight, builtinsWithoutFacade],
    onSuccess: asciiOutput(SESSIONS_ONE_SHOT),
    esbuildOptions(options) {
      options.conditions = ["@context-fold/source"];
      // ASCII only (other characters escaped, comments dropped with the whitespace, and see asciiOutput):
      // Node decodes an ASCII source on its fast path, into a one-byte string, before it even looks at
      // the compile cache, and a smaller file is a smaller cache to read.
      options.charset = "ascii";
      options.minifyWhitespace = true;
    },
  }),
  // The seed index's record reader the history search's bundle requires on first use (seedIndexLight).
  sharedConfig({ [SEED_READER]: "src/seed-reader.ts" }, {
    format: ["cjs"],
    dts: false,
    clean: false,
    noExternal: [/.*/],
    esbuildOptions(options) {
      options.conditions = ["@context-fold/source"];
      options.charset = "ascii";
      options.minifyWhitespace = true;
    },
  }),
  sharedConfig({ "recall-one-shot": "src/recall-one-shot.ts" }, {
    dts: false,
    // Node built-ins reach builtinsWithoutFacade as they are written (tsup would otherwise take them first).
    removeNodeProtocol: false,
    clean: false,
    noExternal: [/^@context-fold\/[^/]+\/.+/],
    esbuildPlugins: [builtinsWithoutFacade],
    // ASCII only and without comments, as the history search's bundle (see there): with one character
    // outside ASCII kept, Node decoded the whole file into a two-byte string on its slow path.
    onSuccess: asciiOutput(ONE_SHOT),
    esbuildOptions(options) {
      options.conditions = ["@context-fold/source"];
      options.charset = "ascii";
      options.minifyWhitespace = true;
    },
  }),
]);
