import { defineConfig } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

// Pi stays external: the turn replay drives Pi's own SessionManager, resolved from the workspace root
// (a root devDependency), as the extension resolves it at run time.
export default defineConfig(sharedConfig(["src/bench.ts"], { external: ["@earendil-works/pi-coding-agent"] }));
