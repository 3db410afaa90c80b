// The CLI's own version, read from its package.json (one level above both src/ and dist/). node:fs is
// taken without an ES module import (see main.ts): `--version` loads this module alone.
const pkg = JSON.parse(process.getBuiltinModule("node:fs").readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
export const version: string = pkg.version;
