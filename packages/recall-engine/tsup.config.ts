import { defineConfig } from "tsup";
import { sharedConfig } from "../../tsup.shared.js";

// `./one-shot` (a search answered from the cache and its block table) is an entry of its own, split into
// shared chunks with the main one: a process that only searches loads none of the rest.
export default defineConfig(sharedConfig(["src/index.ts", "src/one-shot.ts"], { splitting: true }));
