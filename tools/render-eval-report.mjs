#!/usr/bin/env node
// The eval report in a real browser: `context-fold eval --html` on a real session with its truth file,
// opened in Chromium (Debian's, through playwright-core with its executablePath; nothing downloaded),
// every chart measured as drawn, every request the page makes recorded, and a full-page screenshot
// decoded to check it is not blank and shows the charts' colour. A blank page goes through the same
// check first and must be judged blank, so the check is known to be able to fail.
// Run by .ci/run once Chromium is installed; by hand: `node tools/render-eval-report.mjs` after a build.
// Exits 1 with the reason on any failure.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { chromium } from "playwright-core";
import { pixelStats } from "./png-pixels.mjs";

const root = resolve(import.meta.dirname, "..");
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const cli = join(root, "apps", "cli", "dist", "main.js");
const real = join(root, "..", "shared", "fixtures", "real");
const session = join(real, "castai-kimchi-dev-910d402__session.jsonl");
const truth = join(real, "castai-kimchi-dev-910d402__session.truth.json");
const out = join(root, ".ci-out", "eval-report");
const html = join(out, "report.html");
const shot = join(out, "report.png");
// With --rounds 3 and a truth file: retention per metric, per round (two series), tokens per round, truth.
const CHARTS = ["s1-retention", "s1-rounds-retention", "s1-rounds-tokens", "s1-truth"];
// The colour of the first series' bars (html-report.ts SERIES_COLOURS[0]).
const CHART_BLUE = [0x2f, 0x6f, 0xb3];

function fail(message) {
  console.error(`render-eval-report: ${message}`);
  process.exit(1);
}

for (const [what, path] of [["Chromium", executablePath], ["the built CLI", cli], ["the real fixture", session], ["its truth file", truth]]) {
  if (!existsSync(path)) fail(`${what} is missing: ${path}`);
}
mkdirSync(out, { recursive: true });

const evalRun = spawnSync(process.execPath, [cli, "eval", session, "--truth", truth, "--rounds", "3", "--html", html], { encoding: "utf8" });
// 0: floors held, 1: a floor not held; both write the report. Anything else is a failure.
if (evalRun.status !== 0 && evalRun.status !== 1) fail(`eval exited ${evalRun.status}: ${evalRun.stderr}`);

/** Not blank: enough of the page differs from its background, in more than a handful of colours. */
function blankness(png, rgb) {
  const stats = pixelStats(png, rgb);
  return { ...stats, blank: stats.nonBackground < 0.01 || stats.colours < 8 };
}

const browser = await chromium.launch({
  executablePath,
  headless: true,
  // As root Chromium will not start without --no-sandbox; the rest keep it off this machine's closed network.
  args: [
    ...(process.getuid?.() === 0 ? ["--no-sandbox"] : []),
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
});
try {
  const page = await browser.newPage({ viewport: { width: 820, height: 1000 } });

  const empty = await (async () => {
    await page.setContent("<!DOCTYPE html><html><body></body></html>");
    return blankness(await page.screenshot({ fullPage: true }));
  })();
  if (!empty.blank) fail(`the blank-page control was not judged blank (${JSON.stringify(empty)}): the check cannot be trusted`);

  const url = pathToFileURL(html).href;
  const requests = [];
  // Anything but the report itself is recorded and refused: a self-contained page asks for nothing.
  await page.route("**/*", (route) => {
    const asked = route.request().url();
    if (asked === url) return route.continue();
    requests.push(asked);
    return route.abort();
  });
  await page.goto(url, { waitUntil: "load" });
  const drawn = await page.evaluate(() =>
    [...document.querySelectorAll("figure.chart")].map((figure) => {
      const svg = figure.querySelector("svg");
      const box = svg === null ? { width: 0, height: 0 } : svg.getBoundingClientRect();
      const painted = svg === null ? 0 : [...svg.querySelectorAll("rect")].filter((r) => r.getBoundingClientRect().width > 0).length;
      return { id: figure.id, width: box.width, height: box.height, painted };
    }),
  );
  if (JSON.stringify(drawn.map((d) => d.id)) !== JSON.stringify(CHARTS)) fail(`charts drawn: ${JSON.stringify(drawn.map((d) => d.id))}, expected ${JSON.stringify(CHARTS)}`);
  for (const d of drawn) if (d.width <= 0 || d.height <= 0 || d.painted === 0) fail(`chart ${d.id} was not drawn: ${JSON.stringify(d)}`);
  if (requests.length > 0) fail(`the page asked for ${requests.length} resource(s): ${requests.join(", ")}`);

  const png = await page.screenshot({ path: shot, fullPage: true });
  const seen = blankness(png, CHART_BLUE);
  if (seen.blank) fail(`the screenshot ${shot} is blank: ${JSON.stringify(seen)}`);
  if (seen.exact < 500) fail(`the screenshot ${shot} shows too little of the charts' colour (${seen.exact} px)`);
  console.log(
    `render-eval-report: Chromium drew ${drawn.length} charts (${drawn.map((d) => `${d.id} ${d.painted} bars`).join(", ")}); screenshot ${seen.width}x${seen.height}, ` +
      `${(seen.nonBackground * 100).toFixed(1)}% non-background, ${seen.colours} colours, ${seen.exact} px of chart blue; no request left the page → ${shot}`,
  );
} finally {
  await browser.close();
}
