// One build config for every package and app: ESM only, .d.ts, Node 22 target.
import type { Options } from "tsup";

export function sharedConfig(entry: string[] | Record<string, string>, extra: Partial<Options> = {}): Options {
  return {
    entry,
    format: ["esm"],
    dts: true,
    sourcemap: true,
    clean: true,
    target: "node22",
    platform: "node",
    splitting: false,
    treeshake: true,
    ...extra,
  };
}
