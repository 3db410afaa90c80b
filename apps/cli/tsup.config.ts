import { defineConfig } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

export default defineConfig(sharedConfig(["src/main.ts", "src/index.ts"], { banner: { js: "#!/usr/bin/env node" } }));
