// The handoff seed as markdown. Quoted session text sits in fenced blocks whose fence is longer than
// any backtick run inside, so it is reproduced byte for byte whatever it contains.
import type { HandoffDoc, HandoffPointer } from "./handoff-doc.js";
import { buildHandoffDoc, type HandoffInput, shellQuote } from "./handoff-doc.js";

function longestRun(text: string, char: string): number {
  let best = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === char) {
      run += 1;
      if (run > best) best = run;
    } else run = 0;
  }
  return best;
}

/** A fenced block holding `text` verbatim. */
function fenced(text: string): string {
  const fence = "`".repeat(Math.max(3, longestRun(text, "`") + 1));
  return `${fence}text\n${text}\n${fence}`;
}

/** Inline code holding `text` (one line) verbatim. */
function code(text: string): string {
  const ticks = "`".repeat(longestRun(text, "`") + 1);
  const pad = text.startsWith("`") || text.endsWith("`") ? " " : "";
  return `${ticks}${pad}${text}${pad}${ticks}`;
}

/** Lines joined by one space (split, not a regex: a long whitespace run must stay linear). */
function oneLine(text: string): string {
  if (!text.includes("\n")) return text.trim();
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line.length > 0)
    .join(" ");
}

function pointerLine(p: HandoffPointer): string {
  if (p.kind === "span") {
    return `- ${code(p.code ?? "")} ${p.label}, turn ${String(p.turn)}, ${String(p.bytes ?? 0)} bytes (${code(p.anchor ?? "")}): ${code(p.command)}`;
  }
  const anchor = p.anchor === undefined ? "" : ` (${code(p.anchor)})`;
  return `- ${p.label}: #${String(p.index ?? 0)}, turn ${String(p.turn)}${anchor}: ${code(p.command)}`;
}

/** Markdown of a handoff document. */
export function renderHandoff(doc: HandoffDoc): string {
  const out: string[] = [];
  const file = shellQuote(doc.sessionFile);
  out.push(`# Handoff: session ${doc.sessionId}`, "");
  out.push(
    `Written ${doc.now} from ${code(doc.sessionFile)}. It seeds a new session continuing that one: the goal, where the work stands, ` +
      "the user's decisions verbatim, what is still failing, and how to pull anything back in full. `#N` numbers the blocks of the session file.",
  );

  out.push("", "## Goal", "");
  if (doc.goal.source === "none") out.push("No goal was given and the session has no user request.");
  else {
    out.push(doc.goal.source === "given" ? "As given for this handoff:" : `The founding request (#${String(doc.goal.index ?? 0)}), verbatim:`, "", fenced(doc.goal.text));
  }
  // Every founding message not already shown as the goal, verbatim.
  for (const p of doc.foundingRequests) {
    if (doc.goal.source === "founding-request" && p.index === doc.goal.index) continue;
    out.push("", `### Founding request (#${String(p.index)}, turn ${String(p.turn)}), verbatim`, "", fenced(p.text));
  }

  const s = doc.state;
  out.push("", "## Current state", "");
  out.push(`- User turns so far: ${String(s.turns)}`);
  if (s.focus.length > 0) out.push(`- Focus: ${oneLine(s.focus)}${s.focusIndex === null ? "" : ` (#${String(s.focusIndex)})`}`);
  if (s.lastModification !== undefined) out.push(`- Last modification: ${oneLine(s.lastModification.text)} (#${String(s.lastModification.index)})`);
  if (s.nextSteps.length > 0) {
    out.push("- Next steps (from the latest assistant text):");
    for (const step of s.nextSteps) out.push(`  - ${oneLine(step)}`);
  }
  if (s.changedFiles.length > 0) {
    out.push("- Files changed:");
    for (const f of s.changedFiles) out.push(`  - ${code(f.path)} (${f.status}, #${String(f.index)})`);
  }
  if (s.commits.length > 0) {
    out.push("- Commits:");
    for (const c of s.commits) out.push(`  - ${code(c.hash)} ${oneLine(c.subject)} (#${String(c.index)})`);
    if (s.commitsOmitted > 0) out.push(`  - … and ${String(s.commitsOmitted)} earlier commits (recall: ${code(`context-fold facts ${file}`)})`);
  }
  if (s.workingCommands.length > 0) {
    out.push("- Commands that work (failed before, succeeded later):");
    for (const w of s.workingCommands) out.push(`  - ${code(oneLine(w.command))} (#${String(w.index)})`);
  }
  if (s.recentTurns.length > 0) {
    out.push("- Recent turns:");
    for (const t of s.recentTurns) out.push(`  - turn ${String(t.turn)} (#${String(t.index)}): ${oneLine(t.line)}`);
  }

  out.push("", "## Decisions", "");
  if (doc.decisions.length === 0) out.push("No user corrections, preferences or scope changes were recorded.");
  else {
    out.push("The user's corrections, preferences and scope changes, verbatim, in session order.");
    for (const d of doc.decisions) {
      out.push("", `### ${d.kind}, turn ${String(d.turn)} (#${String(d.index)})`, "", fenced(d.text));
      if (d.clipped) out.push(`… (clipped; recall #${String(d.index)}: ${code(`context-fold recall ${file} --expand ${String(d.index)}`)})`);
    }
  }

  out.push("", "## Open errors", "");
  if (doc.openErrors.length === 0) out.push("None: every error seen was resolved later in the session.");
  for (const e of doc.openErrors) {
    const where = [e.file === undefined ? "" : `file ${code(e.file)}`, e.command === undefined ? "" : `command ${code(oneLine(e.command))}`].filter((x) => x.length > 0).join(", ");
    out.push(`- [${e.severity}] ${e.label}: ${oneLine(e.text)}${where.length > 0 ? ` (${where})` : ""}; turn ${String(e.turn)}, #${String(e.index)}`);
  }

  out.push("", "## Recovery pointers", "");
  const blocks = doc.pointers.filter((p) => p.kind === "block");
  const spans = doc.pointers.filter((p) => p.kind === "span");
  out.push(`Any \`#N\` in this handoff: ${code(`context-fold recall ${file} --expand N`)} prints that block whole, verified against the session file.`, "");
  out.push("Blocks to start from:");
  if (blocks.length === 0) out.push("- none");
  for (const p of blocks) out.push(pointerLine(p));
  out.push("");
  if (spans.length === 0) out.push("Folded spans: none in the seed index.");
  else {
    const where = doc.seedIndexFile === undefined ? "" : ` (${code(`context-fold records show ${shellQuote(doc.seedIndexFile)}`)})`;
    const omitted = doc.spansOmitted > 0 ? `; ${String(doc.spansOmitted)} earlier ones are in the seed index${where}` : "";
    out.push(`Folded spans (seed index, current view; ${String(spans.length)} most recent${omitted}):`);
    for (const p of spans) out.push(pointerLine(p));
  }
  out.push(
    "",
    `Anything else: search with ${code(`context-fold recall ${file} "<words>"`)}; an exact block by anchor with ${code(`context-fold resolve ${file} <anchor>`)}.`,
  );
  return `${out.join("\n")}\n`;
}

/** `renderHandoff(buildHandoffDoc(input))`: the handoff seed's markdown. */
export function buildHandoff(input: HandoffInput): string {
  return renderHandoff(buildHandoffDoc(input));
}
