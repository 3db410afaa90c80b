import { copyFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

const here = dirname(fileURLToPath(import.meta.url));

// typebox's runtime is bundled in (tree-shaken): loading its ~700 ES modules one by one cost every
// importer ~190 ms at startup (each CLI run, each Pi start). Its types still come from the dependency,
// and its MIT license travels with the bundle.
export default defineConfig(
  sharedConfig(["src/index.ts"], {
    // Built for the engines floor (package.json), which tools/check-engines-floor.mjs proves in CI.
    target: "node20.12",
    noExternal: ["typebox"],
    onSuccess: async () => {
      mkdirSync(join(here, "dist/licenses"), { recursive: true });
      copyFileSync(join(here, "node_modules/typebox/license"), join(here, "dist/licenses/typebox.txt"));
    },
  }),
);
