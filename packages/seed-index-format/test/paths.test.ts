// fullOutputPath is untrusted: it resolves only to real files under the given roots (real symlinks here).
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "@context-fold/test-support";
import { resolveFullOutputPath, seedIndexPath } from "@context-fold/seed-index-format";
import { describe, expect, it } from "vitest";

describe("resolveFullOutputPath", () => {
  const base = tempDir("sif-paths-");
  const root = join(base, "tool-output");
  const outside = join(base, "secret");
  mkdirSync(join(root, "sub"), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(root, "call_1.txt"), "full output");
  writeFileSync(join(root, "sub", "call_2.txt"), "nested");
  writeFileSync(join(outside, "key.txt"), "secret");
  symlinkSync(join(outside, "key.txt"), join(root, "escape.txt"));
  symlinkSync(outside, join(root, "escape-dir"));
  symlinkSync(join(root, "call_1.txt"), join(root, "inside-link.txt"));
  const linkedRoot = join(base, "linked-root");
  symlinkSync(root, linkedRoot);

  it("resolves a file under a root", async () => {
    expect(await resolveFullOutputPath(join(root, "call_1.txt"), [root])).toEqual({ ok: true, path: join(root, "call_1.txt") });
    expect(await resolveFullOutputPath(join(root, "sub", "call_2.txt"), [outside, root])).toMatchObject({ ok: true });
  });

  it("follows a symlink that stays inside", async () => {
    expect(await resolveFullOutputPath(join(root, "inside-link.txt"), [root])).toEqual({ ok: true, path: join(root, "call_1.txt") });
  });

  it("accepts a root given through a symlink", async () => {
    expect(await resolveFullOutputPath(join(linkedRoot, "call_1.txt"), [linkedRoot])).toEqual({ ok: true, path: join(root, "call_1.txt") });
  });

  const refusals: [string, () => string, RegExp][] = [
    ["a file symlink escaping the root", () => join(root, "escape.txt"), /symlink escape/],
    ["a directory symlink escaping the root", () => join(root, "escape-dir", "key.txt"), /symlink escape/],
    ["traversal with ..", () => `${root}/../secret/key.txt`, /"\.\." segment/],
    ["traversal that lands back inside", () => `${root}/sub/../call_1.txt`, /"\.\." segment/],
    ["a path outside every root", () => join(outside, "key.txt"), /outside the allowed roots/],
    ["a relative path", () => "tool-output/call_1.txt", /not absolute/],
    ["a missing file", () => join(root, "nope.txt"), /ENOENT/],
    ["a directory", () => join(root, "sub"), /not a regular file/],
    ["a NUL byte", () => `${root}/call_1.txt\0.png`, /NUL/],
    ["an empty path", () => "", /empty/],
    ["a sibling whose name extends the root's", () => `${root}-evil/x.txt`, /outside the allowed roots/],
  ];
  for (const [name, path, reason] of refusals) {
    it(`refuses ${name}`, async () => {
      const result = await resolveFullOutputPath(path(), [root]);
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.reason).toMatch(reason);
    });
  }

  it("refuses everything when no roots are given", async () => {
    expect(await resolveFullOutputPath(join(root, "call_1.txt"), [])).toMatchObject({ ok: false });
  });
});

describe("seedIndexPath", () => {
  it("sits beside the session file under context-fold/<session id>", () => {
    expect(seedIndexPath("/s/dir/2026_x.jsonl", "id-1")).toBe("/s/dir/context-fold/id-1/seed-index.jsonl");
  });
});
