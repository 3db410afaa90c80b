// `context-fold facts <session.jsonl>`: the summary facts extraction finds on the session's lineage —
// goal, preferences, files with symbols, commits, outstanding context, earlier turns, status, anchors.
import { createFactsAccumulator, extractFacts, type SessionFacts } from "@context-fold/extractors";
import { type LineageRoute, lineageBlocks, lineageInFileOrder, lineageRoute, readSession, type SessionShape, streamRoute } from "@context-fold/ledger-reader";
import type { Command } from "commander";
import { freeHeapPagesOnce } from "../free-heap-pages.js";
import { emit, style } from "../output.js";
import { readSessionForCli, readSessionShapeForCli, streamsSession } from "../session-input.js";

function ref(index: number): string {
  return style(`(#${String(index)})`, "dim");
}

function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

const STATUS_LABEL = { modified: "Modified", created: "Created", read: "Read" } as const;

/** Human-readable rendering: bracketed sections, every item with its `(#N)`; empty sections omitted. */
export function factsText(f: SessionFacts): string {
  const out: string[] = [];
  const section = (title: string, lines: string[]): void => {
    if (lines.length === 0) return;
    if (out.length > 0) out.push("");
    out.push(style(`[${title}]`, "bold"), ...lines);
  };
  const goal: string[] = [];
  if (f.goal !== null) goal.push(`- ${oneLine(f.goal.text, 400)} ${ref(f.goal.index)}`);
  for (const s of f.scopeChanges) goal.push(`- [Scope change] ${oneLine(s.text)} ${ref(s.index)}`);
  section("Session Goal", goal);
  section("User Preferences", f.preferences.map((p) => `- ${oneLine(p.text)} ${ref(p.index)}`));
  const files: string[] = [];
  for (const status of ["modified", "created", "read"] as const) {
    for (const x of f.files.filter((y) => y.status === status)) {
      const symbols = x.symbols.length > 0 ? ` (${x.symbols.slice(0, 8).join(", ")}${x.symbols.length > 8 ? ", …" : ""})` : "";
      files.push(`- ${STATUS_LABEL[status]}: ${x.path}${symbols} ${ref(x.lastIndex)}`);
    }
  }
  section("Files And Changes", files);
  section(
    "Commits",
    f.commits.map((c) => `- ${c.hash}: ${c.subject}${c.kind === "commit" ? "" : ` [${c.kind}]`}${c.branch !== undefined ? ` on ${c.branch}` : ""} ${ref(c.index)}`),
  );
  const anchors: string[] = [];
  if (f.anchors.commits.length > 0) anchors.push(`- commits: ${f.anchors.commits.join(", ")}`);
  if (f.anchors.errorIds.length > 0) anchors.push(`- errors: ${f.anchors.errorIds.join(", ")}`);
  if (f.anchors.keyFiles.length > 0) anchors.push(`- files: ${f.anchors.keyFiles.join(", ")}`);
  section("Anchors", anchors);
  const catalog: string[] = [];
  let lastPath = "";
  for (const t of f.typeCatalog) {
    if (t.path !== lastPath) catalog.push(`- ${t.path} [${t.status}]:`);
    lastPath = t.path;
    catalog.push(`  ${t.line}`);
  }
  section("Type Catalog", catalog);
  section(
    "Outstanding Context",
    f.outstanding.map((o) => {
      const tag = o.resolved ? style("[RESOLVED]", "green") : style(`[${o.severity}]`, o.severity === "ERROR" ? "red" : o.severity === "WARN" ? "yellow" : "cyan");
      const where = o.resolved && o.resolvedIndex !== undefined ? `(#${String(o.index)} → #${String(o.resolvedIndex)})` : `(#${String(o.index)})`;
      return `- ${tag} [${o.label}] ${oneLine(o.text, 300)} ${style(where, "dim")}`;
    }),
  );
  section("Earlier Turns", f.turns.map((t) => `- ${oneLine(t.oneLine)} ${ref(t.index)}`));
  const status: string[] = [];
  if (f.status.focus !== "") status.push(`- Working on: ${f.status.focus}${f.status.focusIndex !== null ? ` ${ref(f.status.focusIndex)}` : ""}`);
  if (f.status.lastModification !== undefined) status.push(`- Last action: ${f.status.lastModification.text} ${ref(f.status.lastModification.index)}`);
  for (const n of f.status.nextSteps) status.push(`- Next: ${n}`);
  section("Current Status", status);
  if (out.length === 0) return "no facts: the session has no messages on its lineage";
  return out.join("\n");
}

/**
 * Facts of the lineage from the session's shape and one streamed read: each lineage entry's blocks are
 * fed to the accumulator and dropped (the same facts as `extractFacts` over every lineage block). A
 * lineage that runs backwards in the file (hand-edited) cannot be met in order in one pass: read whole.
 * Only the lineage's route and the cwd are kept of the shape (see `lineageRoute`), so the shape is
 * garbage before the stream starts: on a 1 GB session that is ≈230 MB the stream does not sit beside.
 */
export function streamedFacts(shape: SessionShape): Promise<SessionFacts> {
  const { session } = shape;
  const options = session.header.cwd !== undefined ? { cwd: session.header.cwd } : {};
  if (!lineageInFileOrder(session)) return wholeFacts(session.path, session.header.fragment === true, options);
  return factsAlong(lineageRoute(session), options);
}

async function wholeFacts(path: string, fragment: boolean, options: { cwd?: string }): Promise<SessionFacts> {
  const whole = await readSession(path, fragment ? { fragment: true } : {});
  return extractFacts(lineageBlocks(whole), options);
}

async function factsAlong(route: LineageRoute, options: { cwd?: string }): Promise<SessionFacts> {
  const acc = createFactsAccumulator(options);
  // The shape's pages go back at the first entry, the shape let go by then (free-heap-pages.ts).
  const freePages = freeHeapPagesOnce();
  for await (const { blocks } of streamRoute(route)) {
    freePages();
    acc.add(blocks);
  }
  return acc.facts();
}

export function registerFacts(program: Command): void {
  program
    .command("facts")
    .description("Summary facts of a session's lineage: goal, preferences, files + symbols, commits, outstanding context, turns, status")
    .argument("<session.jsonl>", "Pi session file")
    .option("--json", "print the SessionFacts structure as one JSON document")
    .option("--fragment", "read a file without a session header (a fragment Pi refuses) as fragment-<sha256 prefix>")
    .action(async (file: string, options: { json?: boolean; fragment?: boolean }) => {
      const fragment = { fragment: options.fragment === true };
      let facts: SessionFacts;
      if (streamsSession(file)) facts = await streamedFacts(await readSessionShapeForCli(file, fragment));
      else {
        const session = await readSessionForCli(file, fragment);
        facts = extractFacts(lineageBlocks(session), session.header.cwd !== undefined ? { cwd: session.header.cwd } : {});
      }
      emit(options.json === true, facts, () => factsText(facts));
    });
}
