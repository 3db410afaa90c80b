import { builtinModules } from "node:module";
import { defineConfig, type Options } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

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

/**
 * Node's built-in modules taken with `process.getBuiltinModule` instead of an ES module import: importing
 * one builds a facade of all its exports, and node:fs's reads its lazily loaded stream classes (some 15 ms
 * of CPU, half a bare Node start). Each module becomes its exports read off the CommonJS object, marked
 * pure, so the bundle keeps only the names it uses; a name the module lacks fails the build.
 */
const builtinsWithoutFacade: Plugin = {
  name: "builtins-without-facade",
  setup(build) {
    build.onResolve({ filter: BUILTIN }, (args) => ({ path: args.path.startsWith("node:") ? args.path : `node:${args.path}`, namespace: "builtin" }));
    build.onLoad({ filter: /.*/, namespace: "builtin" }, (args) => {
      const exports = process.getBuiltinModule(args.path) as Record<string, unknown>;
      const names = Object.keys(exports).filter((name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== "default");
      const lines = [
        `const m = /* @__PURE__ */ process.getBuiltinModule(${JSON.stringify(args.path)});`,
        "const get = (name) => m[name];",
        "export default m;",
        ...names.map((name) => `export const ${name} = /* @__PURE__ */ get(${JSON.stringify(name)});`),
      ];
      return { contents: lines.join("\n"), loader: "js" };
    });
  },
};

export default defineConfig([
  // Split into chunks so each command module's dynamic import (commands/index.ts) loads only that command's
  // code: the binary's start does not parse the other commands.
  sharedConfig(["src/main.ts", "src/index.ts"], {
    banner: { js: "#!/usr/bin/env node" },
    splitting: true,
    // Both builds write dist/ at once: this one's clean leaves the other's file.
    clean: [`!${ONE_SHOT}`, `!${ONE_SHOT}.map`, `!${SESSIONS_ONE_SHOT}`, `!${SESSIONS_ONE_SHOT}.map`],
    esbuildPlugins: [oneShotExternal],
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
    esbuildPlugins: [builtinsWithoutFacade],
    esbuildOptions(options) {
      options.conditions = ["@context-fold/source"];
    },
  }),
  sharedConfig({ "recall-one-shot": "src/recall-one-shot.ts" }, {
    dts: false,
    // Node built-ins reach builtinsWithoutFacade as they are written (tsup would otherwise take them first).
    removeNodeProtocol: false,
    clean: false,
    noExternal: [/^@context-fold\/[^/]+\/.+/],
    esbuildPlugins: [builtinsWithoutFacade],
    esbuildOptions(options) {
      options.conditions = ["@context-fold/source"];
    },
  }),
]);
