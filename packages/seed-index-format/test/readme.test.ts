// The README's first example runs as written (its session path moved into a temp dir) and prints [0].
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { packageDir } from "./vectors.js";

const HOOK = `
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
export async function resolve(specifier, context, next) {
  if (specifier.startsWith(".") && specifier.endsWith(".js") && context.parentURL?.endsWith(".ts")) {
    const url = new URL(specifier.slice(0, -3) + ".ts", context.parentURL);
    if (existsSync(fileURLToPath(url))) return next(url.href, context);
  }
  return next(specifier, context);
}`;

describe("README", () => {
  it("first example runs and reads back its record", () => {
    const readme = readFileSync(join(packageDir, "README.md"), "utf8");
    const example = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example).toBeDefined();
    const dir = tempDir("sif-readme-");
    const source = (example ?? "")
      .replace('"@context-fold/seed-index-format"', JSON.stringify(pathToFileURL(join(packageDir, "src", "index.ts")).href))
      .replace("/home/me/.pi/agent/sessions/--repo--/", `${dir}/`);
    const script = join(dir, "example.ts");
    writeFileSync(script, source);
    const boot = join(dir, "boot.mjs");
    writeFileSync(boot, `import { register } from "node:module";\nregister("data:text/javascript," + encodeURIComponent(${JSON.stringify(HOOK)}));\nawait import(${JSON.stringify(pathToFileURL(script).href)});\n`);
    const result = spawnSync(process.execPath, [boot], { encoding: "utf8" });
    expect(result.stderr.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, "")).toBe("");
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe("[ 0 ]");
    const index = readFileSync(join(dir, "context-fold", "0193f0c2-7a1e-7000-8000-000000000001", "seed-index.jsonl"), "utf8");
    expect(index.split("\n")).toHaveLength(2);
  });
});
