import { defineConfig } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

// Built for the engines floor (package.json), which tools/check-engines-floor.mjs proves in CI.
// `./block-text` (reading one block's text back from the file) is an entry of its own, split into shared
// chunks with the main one, so a one-shot recall loads it without the session parse.
export default defineConfig(sharedConfig({ index: "src/index.ts", "block-text": "src/block-text-from-file.ts" }, { target: "node20.12", splitting: true }));
