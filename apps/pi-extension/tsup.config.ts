import { defineConfig } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

// The library entry (fold engine, for the bench and embedders); Pi itself loads src/extension.ts via jiti.
export default defineConfig(sharedConfig(["src/index.ts"]));
