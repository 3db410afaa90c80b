// `eval --html`: a self-contained report. Its structure is read back with a strict parser: one chart per
// metric view (retention per metric; per round when --rounds > 1; truth scores with --truth), the
// summary and the misses, nothing fetched from anywhere, every text escaped, the file replaced atomically
// and never a session.
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import { generateSession, writeManifest } from "@context-fold/session-gen";
import { describeShared, sharedFixture, tempDir } from "@context-fold/test-support";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parseEvalManifest } from "../src/eval/eval-manifest.js";
import { evaluateSession } from "../src/eval/evaluate-session.js";
import { type EvalReportInput, renderEvalHtml } from "../src/eval/html-report.js";
import { allElements, type HtmlElement, parseHtml, select, textOf } from "./support/html-tree.js";
import { cli } from "./support/run-cli.js";

afterEach(() => {
  process.exitCode = 0;
});

function tickClock(): () => number {
  let t = 0;
  return () => t++;
}

/** Every place a page could load something from: URL-bearing attributes, CSS url()/@import, and tags that fetch. */
function externalReferences(html: string, doc: HtmlElement): string[] {
  const found: string[] = [];
  for (const e of allElements(doc)) {
    if (["script", "link", "img", "iframe", "object", "embed", "image", "use", "base", "audio", "video", "source"].includes(e.tag)) found.push(`<${e.tag}>`);
    for (const [name, value] of e.attrs) {
      if (["href", "src", "xlink:href", "srcset", "action", "poster", "data", "xmlns"].includes(name)) found.push(`${name}=${value}`);
      if (value.includes("://")) found.push(`${name}=${value}`);
    }
  }
  for (const style of select(doc, "style")) {
    const css = textOf(style);
    if (css.includes("url(") || css.includes("@import")) found.push("css url()/@import");
  }
  if (html.includes("http://") || html.includes("https://")) found.push("an http(s) address in the text");
  return found;
}

function charts(doc: HtmlElement): HtmlElement[] {
  return select(doc, "figure", "chart");
}

/** The labels of a chart's rows (the right-aligned metric names). */
function rowLabels(chart: HtmlElement): string[] {
  return select(chart, "text", "label")
    .filter((t) => t.attrs.get("text-anchor") === "end")
    .map((t) => textOf(t));
}

describe("eval --html", () => {
  const dir = tempDir("cli-eval-html-");
  const file = join(dir, "s.jsonl");
  const manifestFile = join(dir, "s.json");
  beforeAll(async () => {
    await writeManifest(manifestFile, await generateSession(file, { seed: 11, turns: 40 }));
  });

  it("writes one parseable page with the per-metric and per-round charts, the summary and no external resource", async () => {
    const out = join(dir, "report.html");
    const r = await cli(["eval", file, "--needles", manifestFile, "--rounds", "3", "--html", out, "--json"]);
    expect(r.exit).toBe(0);
    const json = JSON.parse(r.stdout) as { sessions: { needles: number; single: { summaryTokens: number } }[] };
    const html = readFileSync(out, "utf8");
    expect(html.startsWith("<!DOCTYPE html>\n")).toBe(true);
    const doc = parseHtml(html);
    expect(externalReferences(html, doc)).toEqual([]);
    const figures = charts(doc);
    expect(figures.map((f) => f.attrs.get("id"))).toEqual(["s1-retention", "s1-rounds-retention", "s1-rounds-tokens"]);
    for (const f of figures) {
      const svgs = select(f, "svg");
      expect(svgs).toHaveLength(1);
      expect(svgs[0]?.attrs.get("role")).toBe("img");
      expect(select(f, "rect").length).toBeGreaterThan(0);
    }
    const [perMetric, perRound, tokens] = figures as [HtmlElement, HtmlElement, HtmlElement];
    expect(rowLabels(perMetric)).toEqual(["founding request verbatim", "corrections", "modified files", "commits", "unresolved errors", "needles in summary", "needles via recall", "needles via rarest words"]);
    // Per round: the same retention metrics, one bar series per scored compaction, with a legend.
    expect(rowLabels(perRound)).toEqual(rowLabels(perMetric).slice(0, 6));
    expect(textOf(perRound)).toContain("after 3 rounds");
    expect(select(tokens, "text", "axis").map((t) => textOf(t)).filter((t) => t.startsWith("round "))).toEqual(["round 1", "round 2", "round 3"]);
    // The summary: the session's name, its floors and the sizes table, with the same figures as --json.
    const body = textOf(select(doc, "body")[0] as HtmlElement);
    expect(body).toContain("s.jsonl");
    expect(body).toContain("Floors:");
    expect(body).toContain(`${String(json.sessions[0]?.needles)} manifest needles`);
    const sizes = select(doc, "tr").map((tr) => textOf(tr));
    expect(sizes.some((row) => row.startsWith("1 compaction") && row.includes(String(json.sessions[0]?.single.summaryTokens)))).toBe(true);
    expect(select(doc, "h3").map((h) => textOf(h))).toContain("Misses");
    // No temp file left beside it.
    expect(readdirSync(dir).filter((f) => f !== "s.jsonl" && f !== "s.json" && f !== "report.html")).toEqual([]);
  });

  it("one compaction only: a single chart; the page replaces an older file whole", async () => {
    const out = join(dir, "single.html");
    writeFileSync(out, "old report ".repeat(10_000));
    const r = await cli(["eval", file, "--needles", manifestFile, "--html", out]);
    expect(r.exit).toBe(0);
    const html = readFileSync(out, "utf8");
    expect(html).not.toContain("old report");
    expect(charts(parseHtml(html)).map((f) => f.attrs.get("id"))).toEqual(["s1-retention"]);
    // The text report still goes to stdout.
    expect(r.stdout).toContain("1 compaction");
  });

  it("the same result renders to the same bytes", async () => {
    const session = await readSession(file);
    const manifest = parseEvalManifest(manifestFile, JSON.parse(readFileSync(manifestFile, "utf8")));
    const render = async (): Promise<string> => {
      const e = await evaluateSession(session, { manifest, rounds: 2, clock: tickClock() });
      return renderEvalHtml({ sessions: [e], skipped: [], truthUnused: [], floorsHeld: true });
    };
    expect(await render()).toBe(await render());
  });

  it("every text is escaped: markup in a reason stays text", () => {
    const doc: EvalReportInput = {
      sessions: [],
      skipped: [{ file: "/x/<b>.jsonl", reason: `<img src="http://example.invalid/x.png"> & <script>alert(1)</script>` }],
      truthUnused: [],
      floorsHeld: false,
    };
    const html = renderEvalHtml(doc);
    const tree = parseHtml(html);
    expect(select(tree, "img")).toEqual([]);
    expect(select(tree, "script")).toEqual([]);
    expect(select(tree, "b")).toEqual([]);
    expect(textOf(tree)).toContain(`<img src="http://example.invalid/x.png"> & <script>alert(1)</script>`);
    expect(textOf(tree)).toContain("No session was scored.");
    expect(charts(tree)).toEqual([]);
  });

  it("refuses to write over the session it scores, leaving it as it was", async () => {
    const before = readFileSync(file);
    const r = await cli(["eval", file, "--needles", manifestFile, "--html", file]);
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain("--html");
    expect(readFileSync(file).equals(before)).toBe(true);
  });

  it("an unwritable target is a usage error naming it, not a crash", async () => {
    const out = join(dir, "no-such-folder", "deeper", "r.html");
    writeFileSync(join(dir, "no-such-folder"), "a file, not a folder");
    const r = await cli(["eval", file, "--needles", manifestFile, "--html", out]);
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain(`cannot write ${out}`);
  });
});

describeShared("eval --html with a truth file (real fixture)", () => {
  const session = sharedFixture("real", "castai-kimchi-dev-910d402__session.jsonl");
  const truth = sharedFixture("real", "castai-kimchi-dev-910d402__session.truth.json");

  it("adds the truth chart, with its floors marked, and lists what the truth says was missed", async () => {
    const out = join(tempDir("cli-eval-html-real-"), "r.html");
    const r = await cli(["eval", session, "--truth", truth, "--html", out]);
    expect([0, 1]).toContain(r.exit);
    const doc = parseHtml(readFileSync(out, "utf8"));
    const figures = charts(doc);
    expect(figures.map((f) => f.attrs.get("id"))).toEqual(["s1-retention", "s1-truth"]);
    const truthChart = figures[1] as HtmlElement;
    expect(rowLabels(truthChart)).toEqual(["decisions (high/medium)", "modified files named", "commits named", "open errors named", "questions by recall", "answers by recall"]);
    expect(select(truthChart, "line", "floor").length).toBeGreaterThan(0);
    expect(textOf(doc)).toContain(basename(truth));
    expect(textOf(doc)).toContain("Truth floors:");
  });
});
