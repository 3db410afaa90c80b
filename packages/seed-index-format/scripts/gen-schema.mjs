// Writes schema.json (JSON Schema 2020-12) from the TypeBox schemas in src/records.ts, via the build in dist/.
// Run with `pnpm --filter @context-fold/seed-index-format gen:schema`; test/schema.test.ts fails on drift.
import { writeFileSync } from "node:fs";
import { schemaDocument } from "../dist/index.js";

const target = new URL("../schema.json", import.meta.url);
writeFileSync(target, `${JSON.stringify(schemaDocument(), null, 2)}\n`);
console.log(`wrote ${target.pathname}`);
