import { defineConfig } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

// Split into chunks so each command module's dynamic import (commands/index.ts) loads only that command's
// code: the binary's start does not parse the other commands.
export default defineConfig(sharedConfig(["src/main.ts", "src/index.ts"], { banner: { js: "#!/usr/bin/env node" }, splitting: true }));
