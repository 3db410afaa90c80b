// Plain questions on sessions Pi's SessionManager wrote, each answered by structure rather than by the
// question's words alone: an edit's acknowledgement does not take the edit's words, a folder named in a
// question is found inside the longer paths commands used, and the user's own message is the source of
// values the assistant's reply repeats. Each case also holds across a history (one ranking wherever a
// hit is found).
import { copyFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { readSession } from "@context-fold/ledger-reader";
import { LINEAR_TIME_MS, tempDir } from "@context-fold/test-support";
import { describe, expect, it } from "vitest";
import { HistoryIndex, parseQuery, type QueryTerm, queryTerms, RecallIndex, searchSessions, stemOf } from "../src/index.js";
import { fileBase } from "../src/query.js";
import { truncationOfTerm } from "../src/rank.js";
import { truncationOf } from "../src/stem.js";
import { askedShapes, holdsShape } from "../src/value-shapes.js";
import { assistant, toolResult, user, writtenByPi } from "./support/pi-session.js";

/** Ten turns about other things, so that idf separates rare words from common ones. */
function filler(sm: Parameters<Parameters<typeof writtenByPi>[0]>[0]): void {
  for (let k = 0; k < 10; k++) {
    sm.appendMessage(user(`step ${String(k)}: keep going with the refactor`));
    sm.appendMessage(assistant([{ type: "text", text: `Step ${String(k)} went fine, nothing to report here.` }]));
  }
}

/** An edit whose old and new text repeat the question's words, acknowledged in one line. */
function portSession(): string {
  const doc = Array.from({ length: 30 }, (_, k) => `- the api server listen port setting ${String(k)}: the port the server will listen on`).join("\n");
  return writtenByPi((sm) => {
    sm.appendMessage(user("which port does the api server use? check the config"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c_grep", name: "bash", arguments: { command: "grep -n port config/server.ts" } }]));
    sm.appendMessage(toolResult("c_grep", "bash", "12: export const port = 8443; // api server listen port"));
    filler(sm);
    sm.appendMessage(user("document the server settings"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c_edit", name: "edit", arguments: { path: "docs/server.md", oldText: doc, newText: `${doc}\n- more` } }]));
    sm.appendMessage(toolResult("c_edit", "edit", "Successfully replaced text in docs/server.md. Changed 2400 characters to 2407 characters."));
  });
}

/** A folder listed by its full path; the question names its last two parts. */
function toolsSession(): string {
  return writtenByPi((sm) => {
    sm.appendMessage(user("what examples do we ship?"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c_ls", name: "bash", arguments: { command: "ls /home/dev/proj/packages/agent/examples/custom-tools/" } }]));
    sm.appendMessage(toolResult("c_ls", "bash", "hello.ts\nquestion.ts\nREADME.md\ntodo.ts"));
    filler(sm);
    for (const topic of ["loading", "errors", "rendering", "state", "tests", "naming"]) {
      sm.appendMessage(user(`how do custom tools handle ${topic}? show examples`));
      sm.appendMessage(assistant([{ type: "text", text: `Custom tools handle ${topic} through the tool context; the examples show custom tools doing it.` }]));
    }
    sm.appendMessage(user("write the custom tools docs"));
    sm.appendMessage(
      assistant([
        { type: "text", text: "Custom tools extend the agent with new tools. Custom tools are modules; see examples/custom-tools/todo.ts for an example of custom tools." },
      ]),
    );
    sm.appendMessage(user("and in the README, an example of custom tools too: examples/custom-tools/hello.ts"));
    sm.appendMessage(assistant([{ type: "text", text: "The README now shows custom tools with an example, linking examples/custom-tools/hello.ts." }]));
    sm.appendMessage(user("check that the theme docs match the ui package"));
    sm.appendMessage(assistant([{ type: "text", text: "Let me look at the MarkdownTheme interface as pi-tui defines it and compare." }]));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c_doc", name: "read", arguments: { path: "docs/theme.md" } }]));
    sm.appendMessage(toolResult("c_doc", "read", "## Markdown\nThe MarkdownTheme interface is defined with heading, link and code colors."));
    sm.appendMessage(assistant([{ type: "text", text: "The docs describe the MarkdownTheme interface with heading and link fields." }]));
    sm.appendMessage(assistant([{ type: "text", text: "The MarkdownTheme interface in the docs lacks the quote fields." }]));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c_md", name: "bash", arguments: { command: 'grep -n "interface MarkdownTheme" /home/dev/pi-mono/packages/tui/src/markdown.ts' } }]));
    sm.appendMessage(toolResult("c_md", "bash", "14:export interface MarkdownTheme {"));
  });
}

/** The user states values; the reply carrying them out repeats them with the question's words. */
/**
 * Type checks run three times: passing, failing with the error the question asks about, passing again;
 * prose talks about type errors more often than any output shows one.
 */
function failureSession(): string {
  return writtenByPi((sm) => {
    const check = (id: string, output: string, failed: boolean): void => {
      sm.appendMessage(assistant([{ type: "toolCall", id, name: "bash", arguments: { command: "npm run check" } }]));
      sm.appendMessage(toolResult(id, "bash", output, failed));
    };
    check("c_1", "> check\n> tsgo --noEmit\nChecked 40 files. No type errors.", false);
    filler(sm);
    sm.appendMessage(user("change toolResults to ToolResultMessage[] and run the type check"));
    check("c_2", "> check\n> tsgo --noEmit\nsrc/core/agent-session.ts(266,5): TS2322: Type 'AppMessage[]' is not assignable to type 'ToolResultMessage[]'.\nCommand exited with code 2", true);
    for (const k of [1, 2, 3]) {
      sm.appendMessage(assistant([{ type: "text", text: `TypeScript error check ${String(k)}: the type check reports errors when toolResults changes type, so watch the TypeScript errors.` }]));
    }
    check("c_3", "> check\n> tsgo --noEmit\nChecked 40 files. No type errors after the toolResults change.", false);
  });
}

function colorsSession(): string {
  return writtenByPi((sm) => {
    filler(sm);
    sm.appendMessage(user("green diff is #b5bd68\nred diff #cc6666\naccent #8abeb7\nuser bg 343541"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c_theme", name: "edit", arguments: { path: "src/theme/dark.json", oldText: '"accent": "#00d7ff"', newText: '"accent": "#8abeb7"' } }]));
    sm.appendMessage(toolResult("c_theme", "edit", "Successfully replaced text in src/theme/dark.json."));
    sm.appendMessage(assistant([{ type: "text", text: "Updated the dark theme with all your colors: accent #8abeb7 (teal), green diffs #b5bd68, red diffs #cc6666, user message background #343541." }]));
    filler(sm);
  });
}

/**
 * The session wrote the verb (`Deduplicate`), the question asks with its noun (`deduplication`); a later
 * message of the user holds the question's other words and is shorter and more recent.
 */
function nounSession(): string {
  return writtenByPi((sm) => {
    filler(sm);
    sm.appendMessage(user("interactive-mode repeats itself everywhere, make it shorter"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c_dedup", name: "bash", arguments: { command: 'git commit -am "Deduplicate interactive-mode: add a showStatus helper"' } }]));
    sm.appendMessage(toolResult("c_dedup", "bash", "[refactor 109a30b] Deduplicate interactive-mode: add a showStatus helper\n 1 file changed"));
    filler(sm);
    sm.appendMessage(user("next, add a helper for the footer"));
  });
}

/**
 * The user names what to compare with a verb (`compare`), the question with its noun (`comparison`);
 * later the same request with another verb (newer, so first on a tie), the assistant's replies holding
 * the question's other words (entry points, main.ts), and a note holding only the verb.
 */
function truncationSession(): string {
  return writtenByPi((sm) => {
    filler(sm);
    sm.appendMessage(user("keep main.ts around; call the new one main-new so I can compare both in parallel"));
    sm.appendMessage(assistant([{ type: "text", text: "Entry points: main.ts and cli.ts stay where they are." }]));
    filler(sm);
    sm.appendMessage(user("keep main.ts around; call the new one main-new so I can run both in parallel"));
    sm.appendMessage(assistant([{ type: "text", text: "The entry points are main.ts and cli.ts, both at the root." }]));
    sm.appendMessage(user("compare the bundle sizes later"));
  });
}

/**
 * A commit names the module without its extension (`interactive-mode`); a later message of the user holds the
 * question's other words and the name's pieces apart.
 */
function baseSession(): string {
  return writtenByPi((sm) => {
    filler(sm);
    sm.appendMessage(user("the selectors should not live in one file"));
    sm.appendMessage(assistant([{ type: "toolCall", id: "c_split", name: "bash", arguments: { command: 'git commit -am "Split interactive-mode selectors"' } }]));
    sm.appendMessage(toolResult("c_split", "bash", "[refactor 6adfb64] Split interactive-mode selectors\n 3 files changed"));
    filler(sm);
    sm.appendMessage(user("split interactive mode, then commit"));
  });
}

/**
 * Why a request broke, three times in the same words: the assistant's lead-in to a grep, the grep's output
 * (code naming the parts), and the reply that ends its work explaining the cause.
 */
function replySession(): string {
  return writtenByPi((sm) => {
    filler(sm);
    sm.appendMessage(user("look into the queue"));
    sm.appendMessage(
      assistant([
        { type: "text", text: "The bash message is saved while the agent is working: let me check how the request is built from it." },
        { type: "toolCall", id: "c_grep", name: "bash", arguments: { command: "grep -n queue src/agent-session.ts" } },
      ]),
    );
    sm.appendMessage(toolResult("c_grep", "bash", "212: queue.push(entry); // the bash message is saved as it arrives, while the agent is working\n213: return entry.id;\n214: }"));
    sm.appendMessage(
      assistant([{ type: "text", text: "Found it: the bash message is saved while the agent is working, between a call and its result, so the request breaks." }]),
    );
    filler(sm);
  });
}

/** Commands that printed nothing (Pi's `(no output)`, an empty result) and one that printed a listing. */
function silentSession(): string {
  return writtenByPi((sm) => {
    filler(sm);
    const run = (id: string, command: string, output: string): void => {
      sm.appendMessage(assistant([{ type: "toolCall", id, name: "bash", arguments: { command } }]));
      sm.appendMessage(toolResult(id, "bash", output));
    };
    sm.appendMessage(user("set up a custom theme"));
    run("c_mk", "mkdir -p ~/.pi/agent/themes && cp src/theme/dark.json ~/.pi/agent/themes/custom.json", "(no output)");
    run("c_open", "code ~/.pi/agent/themes/custom.json", "");
    run("c_ls", "ls ~/.pi/agent/themes/", "custom.json\nlight.json");
    filler(sm);
  });
}

async function hitsOf(file: string, query: string): Promise<{ kind: string; text: string }[]> {
  const session = await readSession(file);
  return RecallIndex.build(session).search(query).hits.map((h) => ({ kind: h.kind, text: session.blocks[h.index]?.text ?? "" }));
}

describe("questions answered by structure", () => {
  it("an edit's acknowledgement does not take the edit's words: the output that states the fact ranks first", async () => {
    const hits = await hitsOf(portSession(), "Which port does the api server listen on?");
    expect(hits[0]?.text).toContain("8443");
    // The edit itself still answers (it holds the words), above its one-line acknowledgement.
    const edit = hits.findIndex((h) => h.kind === "toolCall" && h.text.includes("docs/server.md"));
    const ack = hits.findIndex((h) => h.text.startsWith("Successfully replaced"));
    expect(edit).toBeGreaterThanOrEqual(0);
    expect(ack < 0 || ack > edit).toBe(true);
  });
  it("a folder a question names is found inside the longer path a command listed", async () => {
    const hits = await hitsOf(toolsSession(), "Which example custom tools ship in examples/custom-tools?");
    // After the user's own message naming the folder (and the reply carrying it out, which states what it
    // did: a reply no tool call follows weighs as a source), above the prose naming one file in it.
    const texts = hits.map((h) => h.text);
    const listing = texts.indexOf("hello.ts\nquestion.ts\nREADME.md\ntodo.ts");
    expect(listing).toBeGreaterThanOrEqual(0);
    expect(listing).toBeLessThan(3);
    expect(listing).toBeLessThan(texts.findIndex((t) => t.startsWith("Custom tools extend the agent")));
  });
  it("a compound name's pieces inside one path match it (pi-tui in …/pi-mono/packages/tui/…), pieces apart do not", async () => {
    const file = writtenByPi((sm) => {
      filler(sm);
      // The name is held whole elsewhere, so pieces apart are not a fallback match.
      sm.appendMessage(user("the pi-tui package has the theme types; find the markdown one"));
      // The same length (4 words each); only the first holds both pieces inside one word.
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_one", name: "bash", arguments: { command: "grep -rn MarkdownTheme /w/pi-mono/packages/tui/src" } }]));
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_apart", name: "bash", arguments: { command: "grep MarkdownTheme pi tui" } }]));
    });
    const hits = await hitsOf(file, "Where is MarkdownTheme defined in pi-tui?");
    const one = hits.findIndex((h) => h.text.includes("pi-mono/packages/tui"));
    const apart = hits.findIndex((h) => h.text.includes("MarkdownTheme pi tui"));
    expect(one).toBeGreaterThanOrEqual(0);
    expect(apart < 0 || one < apart).toBe(true);
  });
  it("the user's message is the source of the values the reply repeats, ranked above the reply", async () => {
    const hits = await hitsOf(colorsSession(), "Which colors did the dark theme get for accent and diffs?");
    expect(hits[0]?.kind).toBe("user");
    expect(hits[0]?.text).toContain("#8abeb7");
  });
  it("a possessive or a negation adds no one-letter word to search for", async () => {
    const file = writtenByPi((sm) => {
      filler(sm);
      sm.appendMessage(user("ok, ship it"));
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_commit", name: "bash", arguments: { command: "git commit -am 'release notes'" } }]));
      sm.appendMessage(toolResult("c_commit", "bash", "[main 5e5bdad] release notes\n 2 files changed"));
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_time", name: "bash", arguments: { command: "time make release" } }]));
      sm.appendMessage(toolResult("c_time", "bash", "release built in 3 s, t = 3 s, s: 3"));
    });
    const terms = parseQuery("What hash didn't the release's commit get?");
    expect(terms.mode === "words" ? terms.terms.map((t) => t.primary) : []).toEqual(["what", "hash", "did", "not", "the", "release", "commit", "get"]);
    // The same read with typographic apostrophes only (a query is read for clitics when it has either).
    const curly = parseQuery("What hash didn’t the release’s commit get?");
    expect(curly.mode === "words" ? curly.terms.map((t) => t.primary) : []).toEqual(["what", "hash", "did", "not", "the", "release", "commit", "get"]);
    const hits = await hitsOf(file, "What hash did the release's commit get?");
    expect(hits[0]?.text).toContain("5e5bdad");
  });
  it("a question asking for a version, a hash or a colour prefers the block holding one", async () => {
    const file = writtenByPi((sm) => {
      sm.appendMessage(user("is yt-dlp there?"));
      sm.appendMessage(assistant([{ type: "toolCall", id: "c_v", name: "bash", arguments: { command: "yt-dlp --version" } }]));
      sm.appendMessage(toolResult("c_v", "bash", "2024.04.09"));
      filler(sm);
      sm.appendMessage(assistant([{ type: "text", text: "The yt-dlp version is too old, so the yt-dlp upgrade comes first; the installed yt-dlp version matters." }]));
      sm.appendMessage(assistant([{ type: "text", text: "Checking which yt-dlp version the installer picks and whether the version pin holds." }]));
      sm.appendMessage(assistant([{ type: "text", text: "The yt-dlp version question again: pin the version or not." }]));
    });
    const hits = await hitsOf(file, "Which yt-dlp version was installed?");
    expect(hits[0]?.text).toBe("2024.04.09");
  });
  it("reads the asked value's form from questions and terms, not from other words", () => {
    const shapes = (q: string): string[] => askedShapes(queryTerms(q));
    expect(shapes("Which versions and hex colours did the commit hash get?")).toEqual(["version", "color", "hash"]);
    expect(shapes("Which TypeScript errors did the check report, and why did the build fail?")).toEqual(["failure"]);
    expect(shapes("Which file did the user change?")).toEqual([]);
    expect(shapes("What did the check report about the types?")).toEqual([]);
    const text = (t: string) => (): string => t;
    expect(holdsShape(text("pinned to 0.23.2"), false, ["version"])).toBe(true);
    expect(holdsShape(text("lightweight-charts@5.2.0 done"), false, ["version"])).toBe(true);
    expect(holdsShape(text("step 1. then 2"), false, ["version"])).toBe(false);
    expect(holdsShape(text("[main 5e5bdad] release"), false, ["hash"])).toBe(true);
    expect(holdsShape(text("decade facade 1234567"), false, ["hash"])).toBe(false);
    expect(holdsShape(text("accent #8abeb7"), false, ["color"])).toBe(true);
    expect(holdsShape(text("user bg 343541, beaded"), false, ["color"])).toBe(false);
    // A failure is the block's structure, never words about errors in its text.
    expect(holdsShape(text("error: build failed"), false, ["failure"])).toBe(false);
    expect(holdsShape(text("Checked 40 files."), true, ["failure"])).toBe(true);
    expect(holdsShape(text("Checked 40 files."), true, ["version"])).toBe(false);
  });
  it("a question asking for an error prefers the output that failed over prose and passing runs with the same words", async () => {
    const failed = await hitsOf(failureSession(), "Which TypeScript error did npm run check report after the toolResults type change?");
    expect(failed[0]?.text).toContain("TS2322");
    // Without a word asking for a failure, the failed output is not preferred: the same words rank as usual.
    const plain = await hitsOf(failureSession(), "What did npm run check say after the toolResults type change?");
    expect(plain[0]?.text).not.toContain("TS2322");
  });
  it("a question naming an action by its noun finds the verb the session wrote (deduplication → Deduplicate)", async () => {
    expect([stemOf("deduplication"), stemOf("installations"), stemOf("creation"), stemOf("compaction")]).toEqual(["deduplic", "install", "creat", "compact"]);
    // Too short a stem would begin unrelated words; `-sion` nouns do not name their verbs by it.
    expect([stemOf("option"), stemOf("action"), stemOf("section"), stemOf("session"), stemOf("version")]).toEqual([null, null, null, null, null]);
    const hits = await hitsOf(nounSession(), "Which helper did the deduplication add?");
    expect(hits[0]?.text).toContain("Deduplicate interactive-mode");
    const note = hits.findIndex((h) => h.text.startsWith("next, add a helper"));
    expect(note < 0 || note > 0).toBe(true);
  });
  it("a long question word finds the forms its first six letters begin (comparison → compare), only in blocks its other words found", async () => {
    expect([truncationOf("comparison"), truncationOf("reorganisation"), truncationOf("installed"), truncationOf("working"), truncationOf("entry"), truncationOf("main-new"), truncationOf("v0.8.0")]).toEqual([
      "compar",
      "reorga",
      "instal",
      null,
      null,
      null,
      null,
    ]);
    // An identifier the tokenizer splits into parts is matched as typed, whatever its letters.
    expect(["comparison", "refreshToken", "comparison_table", "node_modules"].map((w) => truncationOfTerm(queryTerms(w)[0] as QueryTerm))).toEqual(["compar", null, null, null]);
    const hits = await hitsOf(truncationSession(), "What should the new entry points be called while the old main.ts is kept for comparison?");
    expect(hits[0]?.text).toContain("compare both in parallel");
    // A block holding the verb and none of the question's other words is not found by the verb's first letters.
    expect(hits.some((h) => h.text.startsWith("compare the bundle sizes"))).toBe(false);
    // One word alone is searched as typed: its first letters find nothing it does not begin.
    expect(await hitsOf(truncationSession(), "comparison")).toEqual([]);
  });
  it("a file named with its extension is found where its name is written without it, never by its pieces apart", async () => {
    expect([fileBase("interactive-mode.ts"), fileBase("src/core/agent-session.json"), fileBase("main.ts"), fileBase("readme.md"), fileBase("pi-tui"), fileBase("v0.8.0")]).toEqual([
      "interactive-mode",
      "src/core/agent-session",
      null,
      null,
      null,
      null,
    ]);
    const hits = await hitsOf(baseSession(), "Which commit split interactive-mode.ts?");
    expect(hits[0]?.text).toContain("Split interactive-mode selectors");
    const note = hits.findIndex((h) => h.text.startsWith("split interactive mode"));
    const commit = hits.findIndex((h) => h.text.includes("interactive-mode"));
    expect(note < 0 || note > commit).toBe(true);
  });
  it("the reply that ends the assistant's work states the cause: above the output and the lead-in holding the same words", async () => {
    const hits = await hitsOf(replySession(), "Why did the bash message saved while the agent was working break the request?");
    const at = (start: string): number => hits.findIndex((h) => h.text.startsWith(start));
    const reply = at("Found it:");
    const output = at("212:");
    const leadIn = at("The bash message is saved while");
    expect(reply).toBe(0);
    // The output still ranks above the prose that only led in to the call that printed it.
    expect(output).toBeGreaterThan(reply);
    expect(leadIn < 0 || leadIn > output).toBe(true);
  });
  it("a command that printed nothing is found by its call, not by its empty output; an output that printed something still is", async () => {
    const hits = await hitsOf(silentSession(), "Where are custom themes kept?");
    const texts = hits.map((h) => h.text);
    expect(texts.filter((t) => t.trim() === "(no output)" || t.trim() === "")).toEqual([]);
    expect(hits.some((h) => h.kind === "toolCall" && h.text.includes("mkdir -p ~/.pi/agent/themes"))).toBe(true);
    // The listing takes its call's words (the folder): it answers, above the call that asked for it.
    const listing = texts.indexOf("custom.json\nlight.json");
    expect(listing).toBeGreaterThanOrEqual(0);
    const asked = texts.findIndex((t) => t.includes("ls ~/.pi/agent/themes/"));
    expect(asked < 0 || asked > listing).toBe(true);
  });
  it("reads clitics in linear time (a megabyte of apostrophes)", { timeout: LINEAR_TIME_MS }, () => {
    for (const blob of ["a'".repeat(1 << 19), "n'".repeat(1 << 19), "x's".repeat(1 << 18) + "'"]) expect(parseQuery(blob).mode).toBe("words");
  });
  it("ranks the same across a history as in each session alone", async () => {
    const dir = tempDir("question-structure-");
    mkdirSync(join(dir, "--project--"), { recursive: true });
    const files = { port: portSession(), tools: toolsSession(), colors: colorsSession(), noun: nounSession(), base: baseSession(), failure: failureSession(), reply: replySession(), silent: silentSession(), truncation: truncationSession() };
    for (const [name, file] of Object.entries(files)) copyFileSync(file, join(dir, "--project--", `${name}.jsonl`));
    const history = HistoryIndex.for(dir, { root: tempDir("question-structure-state-") });
    for (const query of [
      "Which port does the api server listen on?",
      "Which example custom tools ship in examples/custom-tools?",
      "Where is the MarkdownTheme interface defined in pi-tui?",
      "Which colors did the dark theme get for accent and diffs?",
      "Which helper did the deduplication add?",
      "Which commit split interactive-mode.ts?",
      "Which TypeScript error did npm run check report after the toolResults type change?",
      "Why did the bash message saved while the agent was working break the request?",
      "Where are custom themes kept?",
      "What should the new entry points be called while the old main.ts is kept for comparison?",
    ]) {
      const each = await searchSessions(dir, query, { cache: false });
      const across = await history.search(query);
      expect(across.hits.map((h) => [h.index, h.score]), query).toEqual(each.hits.map((h) => [h.index, h.score]));
    }
  });
});
