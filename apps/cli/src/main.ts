// Entry point of the `context-fold` binary.
import { endQuietlyOnBrokenPipe } from "./error-boundary.js";
import { run } from "./program.js";

endQuietlyOnBrokenPipe();
await run(process.argv.slice(2));
