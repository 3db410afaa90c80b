// File lists on sessions written by Pi: a copy whose source is a command substitution (`cp $(npm root
// -g)/x.json dest`) writes its destination; a copy or move into `.` lands under its own name; a directory
// (a path another listed path lies under: a harness's `read` of a directory) is never listed as a file.
import { describe, expect, it } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { extractFacts, withoutDirectories } from "@context-fold/extractors";
import { shellWords, shellWrites } from "../../src/facts/shell-command.js";
import { PiWriter } from "./pi-writer.js";

describe("shell writes", () => {
  it("reads a command substitution as one word and `.` as a directory", () => {
    expect(shellWords("cp $(npm root -g)/@scope/pkg/dist/dark.json  ~/.pi/themes/custom.json")).toEqual(["cp", "$(npm root -g)/@scope/pkg/dist/dark.json", "~/.pi/themes/custom.json"]);
    expect(shellWrites("mkdir -p ~/.pi/themes && cp $(npm root -g)/@scope/pkg/dist/dark.json ~/.pi/themes/custom.json")).toEqual([{ path: "~/.pi/themes/custom.json", mode: "truncate" }]);
    expect(shellWrites("cp `npm root -g`/pkg/a.json conf/a.json; echo done")).toEqual([{ path: "conf/a.json", mode: "truncate" }]);
    expect(shellWrites("cd src && mv utils/config.ts .")).toEqual([{ path: "./config.ts", mode: "truncate" }]);
    // A non-recursive rm removes files (a change of the working tree); a recursive one may remove directories.
    expect(shellWrites("rm -f chart-smoke.html img/chart-smoke-result.png; ls chart-smoke.html")).toEqual([
      { path: "chart-smoke.html", mode: "remove" },
      { path: "img/chart-smoke-result.png", mode: "remove" },
    ]);
    expect(shellWrites("rm -rf dist build/cache")).toEqual([]);
    // A separator inside a substitution or quotes does not end the command.
    expect(shellWrites(`git commit -m "fix; tidy" && cp $(ls a | head -1) b.txt`)).toEqual([{ path: "b.txt", mode: "truncate" }]);
  });
});

describe("withoutDirectories", () => {
  it("drops a path another listed path lies under, keeps the order and the list itself when none is", () => {
    const list = [{ path: "/home/u/app" }, { path: "/home/u/app/README.md" }, { path: "src" }, { path: "src/a.ts" }, { path: "srcs.ts" }];
    expect(withoutDirectories(list).map((f) => f.path)).toEqual(["/home/u/app/README.md", "src/a.ts", "srcs.ts"]);
    const none = [{ path: "a/b.ts" }, { path: "a/c.ts" }];
    expect(withoutDirectories(none)).toBe(none);
  });
});

describe("facts' files", () => {
  it("list the destination of a copy from a substitution and never a directory the harness read", async () => {
    const w = new PiWriter(tempDir());
    w.user("install the dark theme as my custom theme, then look at the theme sources")
      .bash("mkdir -p ~/.pi/agent/themes && cp $(npm root -g)/@mariozechner/pi-coding-agent/dist/theme/dark.json ~/.pi/agent/themes/custom.json", "")
      .tool("read", { path: `${w.cwd}/src/theme` }, "dark.json\nlight.json\ntheme.ts\n")
      .tool("read", { path: `${w.cwd}/src/theme/theme.ts` }, "export const THEMES = 2;\n")
      .bash("cd src && mv utils/config.ts .", "")
      // A script whose first line moves into a directory: its `sed -i` edits (a `|` inside the quoted
      // expression is no pipe) are of files there.
      .bash("cd src/theme\n\n# fix imports\nsed -i '' 's|from \"../shell.js\"|from \"../../utils/shell.js\"|g' theme.ts", "")
      .say("Installed; the theme module exports THEMES.");
    const f = extractFacts(await w.blocks(), { cwd: w.cwd });
    const files = f.files.map((x) => [x.path, x.status]);
    expect(files).toContainEqual(["~/.pi/agent/themes/custom.json", "created"]);
    expect(files).toContainEqual(["src/config.ts", "created"]);
    expect(files).toContainEqual(["src/theme/theme.ts", "modified"]);
    expect(f.files.map((x) => x.path)).not.toContain("theme.ts");
    expect(f.files.map((x) => x.path)).not.toContain("src/theme");
    expect(f.files.map((x) => x.path)).not.toContain("src");
    expect(f.files.some((x) => x.path.startsWith("~/.pi/agent/themes/custom.json/"))).toBe(false);
  });
});
