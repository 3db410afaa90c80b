import { defineConfig } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

// Built for the engines floor (package.json), which tools/check-engines-floor.mjs proves in CI.
export default defineConfig(sharedConfig(["src/index.ts"], { target: "node20.12" }));
