import { describe, expect, it } from "vitest";
import { createFactsAccumulator, extractFacts, extractSymbols, memoizeText, parseGitCommits, statementKey } from "@context-fold/extractors";
import { memoizeByOwner } from "../src/text-memo.js";
import { BlockBuilder } from "./facts/block-builder.js";

describe("memoizeText", () => {
  it("answers as the function does, computing each text once while it is remembered", () => {
    const calls: string[] = [];
    const upper = memoizeText((t) => {
      calls.push(t);
      return t.toUpperCase();
    }, 4);
    expect(upper("a")).toBe("A");
    expect(upper("a")).toBe("A");
    expect(upper("b")).toBe("B");
    expect(calls).toEqual(["a", "b"]);
  });

  it("stays bounded: past its capacity the texts not asked again are forgotten and computed anew", () => {
    let calls = 0;
    const len = memoizeText((t) => {
      calls++;
      return t.length;
    }, 2);
    for (const t of ["a", "bb", "ccc", "dddd", "eeeee", "ffffff"]) len(t);
    expect(calls).toBe(6);
    // Two generations of two: "a" is long gone, "ffffff" is still held.
    expect(len("ffffff")).toBe(6);
    expect(calls).toBe(6);
    expect(len("a")).toBe(1);
    expect(calls).toBe(7);
  });

  it("statementKey gives the same key remembered or not", () => {
    const text = "Use pnpm, NOT npm! (really)";
    expect(statementKey(text)).toBe("use pnpm not npm really");
    expect(statementKey(`${text}`)).toBe(statementKey(text));
  });
});

describe("memoizeByOwner", () => {
  it("remembers an answer by its owner, text and argument: another text or argument for the same owner is computed again", () => {
    const calls: string[] = [];
    const tagged = memoizeByOwner((t: string, tag: string | undefined) => {
      calls.push(`${tag ?? "-"}:${t}`);
      return `${tag ?? "-"}/${t}`;
    });
    const owner = {};
    expect(tagged(owner, "a", "x")).toBe("x/a");
    expect(tagged(owner, "a", "x")).toBe("x/a");
    expect(tagged(owner, "a", undefined)).toBe("-/a");
    expect(tagged(owner, "b", undefined)).toBe("-/b");
    expect(tagged({}, "b", undefined)).toBe("-/b");
    expect(calls).toEqual(["x:a", "-:a", "-:b", "-:b"]);
  });
});

describe("facts of a text read again (a turn's tail, then its feed)", () => {
  it("read as the files and commands it belongs to, whatever read the same text before", () => {
    // The same text as a TypeScript file, then as a Python one, then as Markdown: each file gets its own language's symbols.
    const text = "export function alpha(x: number): number {\n  return x;\n}\ndef beta(y):\n    return y\nclass Gamma:\n    pass\n";
    const f = extractFacts(new BlockBuilder().user("read them").read("src/a.ts", text).read("src/b.py", text).read("notes.md", text).blocks);
    const symbolsOf = (path: string): readonly string[] => f.files.find((file) => file.path === path)?.symbols ?? [];
    expect(symbolsOf("src/a.ts")).toEqual(extractSymbols("src/a.ts", text).names);
    expect(symbolsOf("src/b.py")).toEqual(extractSymbols("src/b.py", text).names);
    expect(symbolsOf("src/a.ts")).not.toEqual(symbolsOf("src/b.py"));
    expect(symbolsOf("notes.md")).toEqual([]);
    // One output printed by a `git commit` and by a script: git's commit line is the commit in both,
    // and a later `echo` of the same text (no git, no "files changed" line) is none.
    const output = "[main 5e21ff8] fix the chart\n";
    const g = extractFacts(new BlockBuilder().user("commit").bash("git commit -am fix", output).bash("echo '[main 5e21ff8] fix the chart'", output).blocks);
    expect(g.commits.map((c) => c.hash)).toEqual(parseGitCommits(output, "git commit -am fix").map((c) => c.hash));
    expect(parseGitCommits(output, "echo '[main 5e21ff8] fix the chart'")).toEqual([]);
    const h = extractFacts(new BlockBuilder().user("say it").bash("echo '[main 5e21ff8] fix the chart'", output).blocks);
    expect(h.commits).toEqual([]);
  });

  it("reads a result block again with the call a later accumulator knows (the tail began after its call)", () => {
    // The kept tail's accumulator may begin between a call and its result: it reads the result without its
    // command; the session's accumulator, fed the same block objects later, reads it as the git commit it is.
    const blocks = new BlockBuilder().user("commit").bash("git commit -am fix", "[main 5e21ff8] fix the chart\n").blocks;
    const tail = createFactsAccumulator();
    tail.add(blocks.slice(2));
    expect(tail.outsideFacts().commits).toEqual([]);
    const session = createFactsAccumulator();
    session.add(blocks);
    expect(session.facts().commits.map((c) => c.hash)).toEqual(["5e21ff8"]);
  });
});
