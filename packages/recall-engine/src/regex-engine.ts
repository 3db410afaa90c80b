// re2js, the linear-time regex engine, loaded when a pattern is first compiled rather than with the query
// parser (query.ts): a 260 KB module a one-shot word search (the CLI) would load on every run for
// nothing, since a plain word query compiles no pattern. The members the parser uses, under its name.
import { createRequire } from "node:module";
import type { RE2JS as Engine } from "re2js";

export type RE2JS = Engine;

let engine: typeof Engine | undefined;

function load(): typeof Engine {
  if (engine === undefined) {
    let loaded: typeof import("re2js");
    try {
      // Where a bundler inlines re2js (the in-Pi tests bundle each package's dependencies in), its require.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- a synchronous load on first use is the point
      loaded = require("re2js") as typeof import("re2js");
    } catch {
      // Plain Node ESM has no `require`: Node's own, resolving from this package.
      loaded = createRequire(import.meta.url)("re2js") as typeof import("re2js");
    }
    engine = loaded.RE2JS;
  }
  return engine;
}

/** RE2JS's statics the query parser uses, each loading re2js on first use. */
export const RE2JS = {
  get CASE_INSENSITIVE(): number {
    return load().CASE_INSENSITIVE;
  },
  get MULTILINE(): number {
    return load().MULTILINE;
  },
  get DOTALL(): number {
    return load().DOTALL;
  },
  compile: (source: string, flags?: number): Engine => load().compile(source, flags),
  quote: (text: string): string => load().quote(text),
};
