// Programmatic entry: build or run the CLI (used by tests and the demo).
export { buildProgram, run, type ProgramOptions } from "./program.js";
export { CliError, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE } from "./output.js";
export { EXIT_INTERNAL } from "./error-boundary.js";
