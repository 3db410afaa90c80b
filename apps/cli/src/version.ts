// The CLI's own version: its package.json's. The build writes it into the binary (tsup.config.ts defines
// CONTEXT_FOLD_VERSION from that file), so printing it reads no file; the sources run as they are (tests)
// read it from package.json (one level above src/), node:fs taken without an ES module import (see main.ts).
const read = (): string =>
  (JSON.parse(process.getBuiltinModule("node:fs").readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version;
export const version: string = typeof CONTEXT_FOLD_VERSION === "string" ? CONTEXT_FOLD_VERSION : read();
