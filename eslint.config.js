// Flat config: typescript-eslint on every workspace member, plus the layering rule of architecture.md.
import tseslint from "typescript-eslint";
import { layers } from "./tools/layers.mjs";

const all = Object.keys(layers);

const layerRules = Object.entries(layers).map(([pkg, allowed]) => ({
  files: [`packages/${pkg}/src/**/*.ts`],
  rules: {
    "no-restricted-imports": [
      "error",
      {
        patterns: [
          {
            group: ["**/apps/**", "**/tools/**", "@context-fold/cli", "@context-fold/pi-extension", "@context-fold/session-gen", "@context-fold/bench", "@context-fold/test-support"],
            message: "A package never imports an app or a tool (architecture.md, layering).",
          },
          ...all
            .filter((other) => other !== pkg && !allowed.includes(other))
            .map((other) => ({
              group: [`@context-fold/${other}`, `@context-fold/${other}/*`],
              message: `${pkg} may not import ${other} (architecture.md, layering).`,
            })),
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ["**/dist/**", "**/node_modules/**", "**/.turbo/**", "**/*.d.ts", "**/conformance/**", ".bench-out/**"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    rules: {
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-restricted-syntax": ["error", { selector: "ExportDefaultDeclaration", message: "Named exports only." }],
    },
  },
  {
    // Pi loads an extension through its default export; the CLI/tools configs are default-exported by their tools.
    files: ["apps/pi-extension/src/extension.ts", "**/tsup.config.ts", "vitest.config.ts", "tsup.shared.ts", "tools/test-support/src/shared-guard.ts"],
    rules: { "no-restricted-syntax": "off" },
  },
  ...layerRules,
);
