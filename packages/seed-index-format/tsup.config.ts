import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

const here = dirname(fileURLToPath(import.meta.url));

// typebox's runtime is bundled in (tree-shaken): loading its ~700 ES modules one by one cost every
// importer ~190 ms at startup (each CLI run, each Pi start). Its types still come from the dependency,
// and its MIT license travels with the bundle.
// Anchors, block text and paths are entries of their own (package.json "exports"), split into shared chunks:
// the ledger reader and a one-shot recall import them without loading the record schema and typebox.
export default defineConfig(
  sharedConfig(["src/index.ts", "src/anchors.ts", "src/block-text.ts", "src/paths.ts"], {
    splitting: true,
    // Built for the engines floor (package.json), which tools/check-engines-floor.mjs proves in CI.
    target: "node20.12",
    noExternal: ["typebox"],
    onSuccess: async () => {
      mkdirSync(join(here, "dist/licenses"), { recursive: true });
      copyFileSync(join(here, "node_modules/typebox/license"), join(here, "dist/licenses/typebox.txt"));
    },
  }),
);
