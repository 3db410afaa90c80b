// The CLI's own version, read from its package.json (one level above both src/ and dist/).
import { readFileSync } from "node:fs";

const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
export const version: string = pkg.version;
