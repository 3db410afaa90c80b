// Entry point of the `context-fold` binary.
import { run } from "./program.js";

await run(process.argv.slice(2));
