// schema.json is generated from the TypeBox schemas (gen:schema) and must not drift; an independent
// validator (Ajv, JSON Schema 2020-12) must agree with every conformance vector.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { schemaDocument } from "@context-fold/seed-index-format";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { packageDir, recordCases } from "./vectors.js";

const shipped = JSON.parse(readFileSync(join(packageDir, "schema.json"), "utf8")) as Record<string, unknown>;

describe("schema.json", () => {
  it("matches the TypeBox schemas (run `pnpm --filter @context-fold/seed-index-format gen:schema` after changing them)", () => {
    expect(shipped).toEqual(schemaDocument());
  });

  it("is JSON Schema 2020-12 and exported by the package", () => {
    expect(shipped["$schema"]).toBe("https://json-schema.org/draft/2020-12/schema");
    const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { exports: Record<string, unknown>; files: string[] };
    expect(manifest.exports["./schema.json"]).toBe("./schema.json");
    expect(manifest.files).toContain("schema.json");
    expect(manifest.files).toContain("conformance");
  });

  const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
  const validate = ajv.compile(shipped);
  const lines = recordCases().flatMap((c) => {
    const split = c.file.split("\n");
    return c.expected.map((e) => ({ name: `${c.name} (line ${e.line})`, text: split[e.line - 1] ?? "", schema: e.schema, outcome: e.outcome }));
  });

  it("has vectors on both sides", () => {
    expect(lines.filter((l) => l.schema === "accept").length).toBeGreaterThan(10);
    expect(lines.filter((l) => l.schema === "reject").length).toBeGreaterThan(10);
  });

  for (const l of lines.filter((x) => x.schema !== null)) {
    it(`Ajv ${l.schema === "accept" ? "accepts" : "rejects"}: ${l.name}`, () => {
      const ok = validate(JSON.parse(l.text));
      expect(ok, JSON.stringify(validate.errors)).toBe(l.schema === "accept");
      // The reader and the schema agree: accepted lines are records/retractions, rejected ones invalid.
      expect(l.outcome).toBe(l.schema === "accept" ? (ok ? l.outcome : "invalid") : "invalid");
    });
  }
});
