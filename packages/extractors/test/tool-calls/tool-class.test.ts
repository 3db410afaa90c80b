// The one tool classifier against every tool name the real fixtures use, the usual names of other
// harnesses, and custom tools that name a file.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { classifyTool, isContentTool, toolCommand, toolPath, type ToolClass } from "@context-fold/extractors";
import { describeShared, sharedFixture } from "@context-fold/test-support";

/** What each tool name of ../shared/fixtures does (checked by reading the sessions' calls). */
const FIXTURE_TOOLS: Readonly<Record<string, ToolClass>> = {
  bash: "shell",
  edit: "edit",
  read: "read",
  write: "write",
  grep: "search",
  search: "search",
  find: "search",
  ls: "search",
  browser: "other",
  subagent: "other",
  set_phase: "other",
  web_search: "other",
  search_tool_bm25: "other",
  task: "other",
  skill_discovery: "other",
  ledger_note: "other",
  // Sends a file it names: it reads the file, it does not change it.
  telegram_send: "read",
};

function fixtureCalls(): { name: string; args: Record<string, unknown> | undefined }[] {
  const out: { name: string; args: Record<string, unknown> | undefined }[] = [];
  for (const dir of ["real", "sessions"]) {
    const base = sharedFixture(dir);
    for (const f of readdirSync(base).filter((x) => x.endsWith(".jsonl"))) {
      for (const line of readFileSync(join(base, f), "utf8").split("\n")) {
        let entry: unknown;
        try {
          entry = JSON.parse(line);
        } catch {
          continue; // damaged lines of the fixtures are the ledger reader's tests' business
        }
        const content = (entry as { message?: { content?: unknown } } | null)?.message?.content;
        if (!Array.isArray(content)) continue;
        for (const part of content as { type?: string; name?: string; arguments?: Record<string, unknown> }[]) {
          if (part?.type === "toolCall" && typeof part.name === "string") out.push({ name: part.name, args: part.arguments });
        }
      }
    }
  }
  return out;
}

describeShared("classifyTool on the tool names of the real fixtures", () => {
  it("knows every tool name the fixtures use", () => {
    const calls = fixtureCalls();
    const names = new Set(calls.map((c) => c.name));
    expect(names.size).toBeGreaterThan(5);
    for (const name of names) expect(Object.keys(FIXTURE_TOOLS), `tool ${name} is not in the expected table`).toContain(name);
    for (const c of calls) expect(classifyTool(c.name, c.args), c.name).toBe(FIXTURE_TOOLS[c.name]);
  });
});

describe("classifyTool", () => {
  it("reads Pi's built-ins and other harnesses' names, case-insensitively", () => {
    const cases: [string, Record<string, unknown> | undefined, ToolClass][] = [
      ["Read", { path: "a.ts" }, "read"],
      ["read_file", { file_path: "a.ts" }, "read"],
      ["EDIT", { path: "a.ts", oldText: "x", newText: "y" }, "edit"],
      ["MultiEdit", { file_path: "a.ts", edits: [] }, "edit"],
      ["str_replace", { path: "a.ts", old_str: "x", new_str: "y" }, "edit"],
      ["str_replace_based_edit_tool", { command: "str_replace", path: "a.ts" }, "edit"],
      ["str_replace_based_edit_tool", { command: "view", path: "a.ts" }, "read"],
      ["str_replace_based_edit_tool", { command: "create", path: "a.ts", file_text: "x" }, "write"],
      ["my_edit_tool", { path: "a.ts" }, "edit"],
      ["apply_patch", { input: "*** Begin Patch" }, "edit"],
      ["Write", { path: "a.ts", content: "x" }, "write"],
      ["create_file", { filePath: "a.ts", content: "x" }, "write"],
      ["execute_command", { command: "ls" }, "shell"],
      ["run_terminal_cmd", { command: "ls" }, "shell"],
      ["Bash", { command: "ls" }, "shell"],
      ["Glob", { pattern: "*.ts" }, "search"],
      ["web_fetch", { url: "https://x" }, "other"],
      [undefined as unknown as string, undefined, "other"],
    ];
    for (const [name, args, cls] of cases) expect(classifyTool(name, args), String(name)).toBe(cls);
  });

  it("classifies a custom tool that names a file by what its arguments carry", () => {
    expect(classifyTool("save_report", { path: "out/report.md", content: "# r" })).toBe("write");
    expect(classifyTool("patch_config", { file_path: "cfg.yaml", newString: "a: 1", oldString: "a: 0", edits: [] })).toBe("edit");
    expect(classifyTool("upload", { filePath: "img.png" })).toBe("read");
    expect(classifyTool("deploy", { target: "prod" })).toBe("other");
    expect(toolPath("save_report", { path: "out/report.md", content: "x" })).toBe("out/report.md");
    expect(toolPath("deploy", { target: "prod" })).toBeUndefined();
  });

  it("gives the command of shell tools only, and says which outputs are file content", () => {
    expect(toolCommand("execute_command", { command: "pnpm test" })).toBe("pnpm test");
    expect(toolCommand("exec", { argv: ["git", "status"] })).toBe("git status");
    expect(toolCommand("read", { command: "cat x" })).toBeUndefined();
    expect(isContentTool("Read", { path: "a" })).toBe(true);
    expect(isContentTool("bash", { command: "cat a" })).toBe(false);
  });
});
