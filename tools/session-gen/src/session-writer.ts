// Writes one generated conversation through Pi's SessionManager, turn by turn, and records the ground
// truth (needles, commits, errors, corrections, …) as it goes: the scripted turns and tool actions, on
// top of the appending in session-appender.ts.
import { NEW_FILES, PROJECT_FILES, camel, noun, snippet, sourceFile, type Language, type ProjectFile } from "./code-corpus.js";
import { assistantLead, assistantWrapUp, correction, followUp, foundingRequest, preference, thinking } from "./conversation-corpus.js";
import type { Needle } from "./manifest.js";
import {
  RUNNER_COMMANDS, buildLog, gitLog, gitStatus, grepOutput, insertDeep, makeFailure, runnerOutput,
  type Failure, type Runner,
} from "./output-corpus.js";
import type { SeededRandom } from "./random.js";
import { type AssistantPart, SessionAppender, type ToolAction, type TurnRecord } from "./session-appender.js";

export type { PlantedNeedle, TurnRecord } from "./session-appender.js";

/** The last lines of `text` that fit in `bytes` (so a planted needle survives Pi's 50 KB limit). */
function keepTail(text: string, bytes: number): string {
  if (Buffer.byteLength(text) <= bytes) return text;
  const lines = text.split("\n");
  let size = 0;
  let from = lines.length;
  while (from > 0 && size + Buffer.byteLength(lines[from - 1] ?? "") + 1 <= bytes) size += Buffer.byteLength(lines[--from] ?? "") + 1;
  return lines.slice(from).join("\n");
}

const RUNNER_LANG: Readonly<Record<Runner, Language>> = { vitest: "ts", jest: "ts", tsc: "ts", pytest: "py", go: "go", cargo: "rs" };
const RUNNERS: readonly Runner[] = ["vitest", "jest", "pytest", "go", "cargo", "tsc"];

export class SessionWriter extends SessionAppender {
  private pickFile(language?: Language): ProjectFile {
    const pool = language ? PROJECT_FILES.filter((f) => f.language === language) : PROJECT_FILES;
    return this.rng.pick(pool);
  }

  // ── tool actions ────────────────────────────────────────────────────────────

  private readAction(file: ProjectFile, lines: number): ToolAction {
    this.readFiles.add(file.path);
    return { name: "read", args: { path: file.path }, output: sourceFile(this.rng, file.language, lines), isError: false };
  }

  private editAction(file: ProjectFile): ToolAction {
    const oldLines = snippet(this.rng, file.language).split("\n").slice(0, 4);
    const newLines = snippet(this.rng, file.language).split("\n").slice(0, 6);
    const line = this.rng.int(10, 400);
    const width = String(line + 10).length;
    const num = (n: number): string => String(n).padStart(width, " ");
    // Pi's EditToolDetails: a display diff (numbered lines), a unified patch, the first changed line.
    const diff = [
      ...oldLines.map((l, i) => `-${num(line + i)} ${l}`),
      ...newLines.map((l, i) => `+${num(line + i)} ${l}`),
    ].join("\n");
    const patch = [
      `Index: ${file.path}`,
      `===================================================================`,
      `--- ${file.path}`,
      `+++ ${file.path}`,
      `@@ -${line},${oldLines.length} +${line},${newLines.length} @@`,
      ...oldLines.map((l) => `-${l}`),
      ...newLines.map((l) => `+${l}`),
      ``,
    ].join("\n");
    const action: ToolAction = {
      name: "edit",
      args: { path: file.path, edits: [{ oldText: oldLines.join("\n"), newText: newLines.join("\n") }] },
      output: `Successfully replaced 1 block(s) in ${file.path}.`,
      isError: false,
      details: { diff, patch, firstChangedLine: line },
    };
    action.onWritten = (entryId) => {
      if (!this.onBranch) this.modified.push({ path: file.path, entryId });
    };
    return action;
  }

  /** An edit whose oldText did not match: Pi's error, the model then re-reads and retries. */
  private failedEditAction(file: ProjectFile): ToolAction {
    const oldText = snippet(this.rng, file.language).split("\n").slice(0, 3).join("\n");
    return {
      name: "edit",
      args: { path: file.path, edits: [{ oldText, newText: oldText.replace(/limit/g, "maxItems") }] },
      output: `Could not find the exact text in ${file.path}. The old text must match exactly including all whitespace and newlines.`,
      isError: true,
    };
  }

  private writeAction(file: ProjectFile): ToolAction {
    const content = sourceFile(this.rng, file.language, this.rng.int(30, 140));
    const action: ToolAction = {
      name: "write",
      args: { path: file.path, content },
      output: `Successfully wrote to ${file.path}`,
      isError: false,
    };
    action.onWritten = (entryId) => {
      if (this.onBranch) this.branchFacts.push(file.path);
      else this.created.push({ path: file.path, entryId });
    };
    return action;
  }

  private runAction(runner: Runner, failures: readonly Failure[], passing: number): ToolAction {
    const output = runnerOutput(this.rng, runner, passing, failures);
    return {
      name: "bash",
      args: { command: RUNNER_COMMANDS[runner] },
      output: failures.length > 0 ? `${output}\n\nCommand exited with code 1` : output,
      isError: failures.length > 0,
    };
  }

  /**
   * A long output, "hundreds of lines": rare in real sessions (about one tool result in a hundred), so
   * turns mostly use quickLook. `full` outputs often pass Pi's 2000-line / 50 KB limit and are cut by
   * it (toolResult); the shorter ones carry needles, which must survive that cut.
   */
  private bigAction(full = true): ToolAction {
    const kind = this.rng.int(0, 3);
    const n = (min: number, max: number): number => (full ? this.lines(min, max) : this.lines(Math.round(min / 2), Math.round(max / 2)));
    if (kind === 3) return { name: "bash", args: { command: "git log --oneline -n 400" }, output: gitLog(this.rng, n(200, 400)), isError: false };
    if (kind === 0) {
      const fn = camel(this.rng);
      return { name: "bash", args: { command: `grep -rn "${fn}" src/ internal/ crates/` }, output: grepOutput(this.rng, fn, n(200, 900)), isError: false };
    }
    if (kind === 1) return { name: "bash", args: { command: `tail -n 500 logs/${noun(this.rng)}d.log` }, output: buildLog(this.rng, n(300, 1100)), isError: false };
    return this.readAction(this.pickFile(), n(250, 650));
  }

  /** The dev server's log, read once at the start: long enough that Pi keeps only its tail. */
  private serverLog(): ToolAction {
    return { name: "bash", args: { command: "cat logs/devserver.log" }, output: buildLog(this.rng, this.lines(700, 1100)), isError: false };
  }

  /** A short look around, the bulk of real tool calls: a few lines of ls, grep -l, git diff --stat. */
  private quickLook(file: ProjectFile): ToolAction {
    const dir = file.path.slice(0, Math.max(0, file.path.lastIndexOf("/"))) || ".";
    const kind = this.rng.int(0, 3);
    if (kind === 0) {
      const names = Array.from({ length: this.rng.int(3, 12) }, () => `${noun(this.rng)}.${file.language}`);
      return { name: "bash", args: { command: `ls ${dir}` }, output: [file.path.slice(dir.length + 1), ...names].join("\n"), isError: false };
    }
    if (kind === 1) {
      const fn = camel(this.rng);
      return { name: "bash", args: { command: `grep -rn "${fn}" ${dir}` }, output: grepOutput(this.rng, fn, this.rng.int(1, 8)), isError: false };
    }
    if (kind === 2) {
      const stat = [`${file.path} | ${this.rng.int(2, 60)} ${"+".repeat(this.rng.int(1, 20))}${"-".repeat(this.rng.int(0, 9))}`];
      return { name: "bash", args: { command: "git diff --stat" }, output: [...stat, ` 1 file changed, ${this.rng.int(1, 40)} insertions(+), ${this.rng.int(0, 20)} deletions(-)`].join("\n"), isError: false };
    }
    return this.readAction(file, this.rng.int(12, 45));
  }

  private commitAction(): ToolAction {
    let hash = this.rng.hex(7);
    while (this.usedHashes.has(hash)) hash = this.rng.hex(7);
    this.usedHashes.add(hash);
    const subject = `${this.rng.pick(["Fix", "Add", "Handle", "Speed up", "Test", "Refactor"])} ${noun(this.rng)} ${this.rng.pick(["offsets", "retries", "batches", "cursor", "handles", "limits"])} in ${noun(this.rng)} ${this.rng.pick(["reader", "store", "planner", "service"])}`;
    const files = this.rng.int(1, 6);
    const action: ToolAction = {
      name: "bash",
      args: { command: `git add -A && git commit -m "${subject}"` },
      output: `[main ${hash}] ${subject}\n ${files} file${files === 1 ? "" : "s"} changed, ${this.rng.int(3, 240)} insertions(+), ${this.rng.int(0, 90)} deletions(-)`,
      isError: false,
    };
    const turn = this.turn;
    action.onWritten = (entryId) => {
      if (this.onBranch) this.branchFacts.push(`[main ${hash}] ${subject}`);
      else this.commits.push({ hash, subject, turn, entryId });
    };
    return action;
  }

  // ── needles ─────────────────────────────────────────────────────────────────

  private needleValue(kind: Needle["kind"]): string {
    switch (kind) {
      case "identifier":
        return `${camel(this.rng)}_${this.rng.base62(5)}`;
      case "hex":
        return `0x${this.rng.hex(16)}`;
      case "error-line":
        return `Error: ${noun(this.rng)} checksum drift at seq ${this.rng.int(10_000, 999_999)} on shard ${this.rng.int(0, 63)} (ref ${this.rng.hex(10)})`;
      case "decision":
        return `Decision: ${this.rng.pick(["store", "key", "shard", "hash", "index"])} the ${noun(this.rng)}s by ${noun(this.rng)} id with a ${this.rng.int(2, 512)}-entry ${noun(this.rng)} window, and do not revisit this (ref ${this.rng.base62(6)}).`;
    }
  }

  private needleLine(kind: Needle["kind"], value: string): string {
    switch (kind) {
      case "identifier":
        return `export const ${value} = createHandle("${noun(this.rng)}", ${this.rng.int(1, 9999)});`;
      case "hex":
        return `const LEDGER_MAGIC_${this.rng.int(1, 99)} = ${value}; // header magic, keep in sync with the Go reader`;
      case "error-line":
      case "decision":
        return value;
    }
  }

  private userNeedle(kind: "identifier" | "hex" | "decision"): { text: string; value: string } {
    const value = this.needleValue(kind);
    if (kind === "decision") return { value, text: `${value} Please keep that in mind for the rest of the work.` };
    if (kind === "hex") return { value, text: `Use ${value} as the magic number for the v2 ledger header, both in the TS reader and in the Go service.` };
    return { value, text: `Name the new exported helper \`${value}\` exactly — the other team already references that name.` };
  }

  // ── turns ───────────────────────────────────────────────────────────────────

  private beginTurn(): TurnRecord {
    const record: TurnRecord = { turn: this.turn, entryIds: [], plain: true, onBranch: this.onBranch };
    this.current = record;
    this.turns.push(record);
    return record;
  }

  /** Assistant rounds: each round is one assistant message with tool calls, then their results. */
  private rounds(file: ProjectFile, actions: ToolAction[][], wrapUp: string): void {
    for (const round of actions) {
      const parts: AssistantPart[] = [];
      if (this.rng.chance(0.7)) parts.push({ type: "thinking", thinking: thinking(this.rng, file.path), thinkingSignature: this.rng.base62(this.rng.int(120, 360)) });
      parts.push({ type: "text", text: assistantLead(this.rng, file.path) });
      const calls = round.map((action) => ({ action, id: `toolu_01${this.rng.base62(22)}` }));
      for (const c of calls) parts.push({ type: "toolCall", id: c.id, name: c.action.name, arguments: c.action.args });
      this.assistant(parts, "toolUse");
      for (const c of calls) {
        if (c.action.needle) c.action.output = insertDeep(keepTail(c.action.output, 40_000), this.needleLine(c.action.needle.kind, c.action.needle.value), this.rng);
        const entryId = this.toolResult(c.id, c.action);
        if (c.action.needle) {
          if (this.onBranch) this.branchFacts.push(c.action.needle.value);
          this.needles.push({ kind: c.action.needle.kind, value: c.action.needle.value, anchor: `r:${c.id}`, turn: this.turn, entryId, where: "tool-output" });
        }
        c.action.onWritten?.(entryId, c.id);
      }
    }
    this.assistant([{ type: "text", text: wrapUp }], "stop");
  }

  /** The first turn: the founding request, reading the code, a first test run. */
  founding(): void {
    const record = this.beginTurn();
    record.plain = false;
    this.foundingRequest = foundingRequest(this.rng);
    const id = this.userText(this.foundingRequest);
    this.tick(1, 5);
    this.track(this.sm.appendLabelChange(id, "start"));
    const files = [this.pickFile("ts"), this.pickFile("go"), this.pickFile("py")];
    this.rounds(files[0] as ProjectFile, [files.map((f) => this.readAction(f, this.rng.int(60, 220))), [this.runAction("vitest", [], this.rng.int(20, 60))], [this.serverLog()]], `I mapped the code: ${files.map((f) => f.path).join(", ")}. The test suite is green; I'll propose a plan next.`);
    this.tick(1_000, 3_000);
    this.track(this.sm.appendSessionInfo(`${noun(this.rng)} ${noun(this.rng)} work`));
    this.turn++;
  }

  /**
   * One ordinary turn. `needle` plants a needle in a long tool output, `userNeedle` one in the user's
   * text; `late` (the last 20 % of the session) starts no new failures, so the open ones are known.
   */
  work(options: { needle?: Needle["kind"] | undefined; userNeedle?: "identifier" | "hex" | "decision" | undefined; late?: boolean }): void {
    const record = this.beginTurn();
    const file = this.pickFile();
    const due = this.onBranch ? [] : this.pending.filter((p) => p.fixTurn <= this.turn);
    const roll = this.rng.next();
    const actions: ToolAction[][] = [];

    // The user's message.
    if (options.userNeedle) {
      record.plain = false;
      const { text, value } = this.userNeedle(options.userNeedle);
      const entryId = this.userText(text);
      if (this.onBranch) this.branchFacts.push(value);
      this.needles.push({ kind: options.userNeedle, value, turn: this.turn, entryId, where: "user-text" });
    } else if (roll < 0.1 && this.turn > 1) {
      record.plain = false;
      const text = preference(this.rng);
      const entryId = this.userText(text);
      if (!this.onBranch) this.preferences.push({ text, entryId });
    } else if (roll < 0.2 && this.turn > 1) {
      record.plain = false;
      const text = correction(this.rng, file.path);
      const entryId = this.userText(text);
      if (!this.onBranch) this.corrections.push({ text, entryId });
      actions.push([this.editAction(file)]);
    } else if (roll < 0.3) {
      record.plain = false;
      const runner = this.rng.pick(RUNNERS);
      const failures = this.pending.filter((p) => p.failure.runner === runner).map((p) => p.failure);
      this.bashExecution(this.rng.chance(0.5) ? RUNNER_COMMANDS[runner] : "git status", failures.length > 0 ? runnerOutput(this.rng, runner, this.rng.int(5, 40), failures) : gitStatus(this.rng, [file.path]), failures.length > 0 ? 1 : 0, this.rng.chance(0.2));
      this.userText(`See the output above. ${followUp(this.rng, file.path)}`);
    } else {
      this.userText(followUp(this.rng, file.path));
    }

    // Fix failures whose time has come: edit the code, re-run the runner green.
    for (const p of due) {
      record.plain = false;
      const fixFile = this.pickFile(RUNNER_LANG[p.failure.runner]);
      const rerun = this.runAction(p.failure.runner, [], this.rng.int(10, 80));
      const line = p.failure.line;
      rerun.onWritten = (entryId) => {
        if (!this.onBranch) this.fixed.push({ line, entryId });
      };
      actions.push([this.readAction(fixFile, this.rng.int(40, 160))], [this.editAction(fixFile)], [rerun]);
    }
    if (!this.onBranch) this.pending = this.pending.filter((p) => p.fixTurn > this.turn);

    // The body of the turn: first a short look around (most real tool calls are small), then the work.
    for (let i = this.rng.int(1, 3); i > 0; i--) actions.push([this.quickLook(i === 1 ? file : this.pickFile())]);
    const shape = this.rng.int(0, 4);
    if (shape === 0) {
      if (this.rng.chance(0.25)) actions.push([this.failedEditAction(file)]);
      actions.push([this.readAction(file, this.rng.int(40, 200))], [this.editAction(file)]);
    }
    else if (shape === 1) actions.push(this.rng.chance(0.12) ? [this.bigAction()] : [this.quickLook(file)], [this.quickLook(this.pickFile())]);
    else if (shape === 2) actions.push([this.readAction(file, this.rng.int(30, 120)), this.rng.chance(0.1) ? this.bigAction() : this.quickLook(file)]);
    else if (shape === 3) {
      // New project files are only created on the lineage (the branch creates its own store file).
      const fresh = this.onBranch ? undefined : NEW_FILES.find((f) => !this.createdPaths.has(f.path));
      if (fresh) {
        this.createdPaths.add(fresh.path);
        actions.push([this.writeAction(fresh)]);
      } else actions.push([this.editAction(file)]);
    } else actions.push([this.runAction(this.rng.pick(RUNNERS), [], this.rng.int(20, 120))]);

    // A new failure: fixed in a later turn, or left open.
    if (!options.late && !this.onBranch && this.rng.chance(0.12)) {
      record.plain = false;
      const runner = this.rng.pick(RUNNERS);
      const failure = makeFailure(this.rng, runner);
      const run = this.runAction(runner, [failure], this.rng.int(10, 120));
      this.pending.push({ failure, fixTurn: this.turn + this.rng.int(1, 3) });
      run.onWritten = (entryId) => this.openFailures.push({ failure, entryId });
      actions.push([run]);
    }

    if (options.needle) {
      record.plain = false;
      const big = this.bigAction(false);
      big.needle = { kind: options.needle, value: this.needleValue(options.needle) };
      actions.push([big]);
    }

    if (!this.onBranch && this.turn % 4 === 3) {
      record.plain = false;
      actions.push([this.commitAction()]);
    }
    this.rounds(file, actions, assistantWrapUp(this.rng, file.path));
    this.turnsSinceCompaction.push(record.entryIds[0] ?? "");
    this.turn++;
  }

  /** The user's final check: everything still failing is reported, at least one failure stays open. */
  finalTurn(): void {
    const record = this.beginTurn();
    record.plain = false;
    this.userText(`Let's stop here for today. Run every suite once more and list what is still failing.`);
    const stillPending = this.pending.map((p) => p.failure);
    this.pending = [];
    if (stillPending.length === 0 && this.openFailures.every((o) => this.fixed.some((f) => f.line === o.failure.line))) {
      stillPending.push(makeFailure(this.rng, "tsc"));
    }
    const actions: ToolAction[][] = [];
    for (const runner of RUNNERS) {
      const failures = stillPending.filter((f) => f.runner === runner);
      const run = this.runAction(runner, failures, this.rng.int(5, 30));
      run.onWritten = (entryId) => {
        for (const failure of failures) this.openFailures.push({ failure, entryId });
      };
      actions.push([run]);
    }
    this.rounds(this.pickFile(), actions, `Still failing: ${stillPending.length > 0 ? stillPending.map((f) => f.line).join("; ") : "see the earlier failures"}. I'll pick these up next session.`);
    this.turn++;
  }

  // ── structure ───────────────────────────────────────────────────────────────

  /** An abandoned side exploration from the current leaf; `withSummary` returns via branch_summary. */
  abandonedBranch(withSummary: boolean): void {
    const from = this.sm.getLeafId();
    if (from === null) return;
    this.branchPoints.push(from);
    this.onBranch = true;
    const backend = this.rng.pick(["sqlite WAL", "LMDB", "a RocksDB column family", "an append-only mmap file"]);
    const fact = `${backend} prototype: ${this.rng.int(100, 999)} ms p50 for ${this.rng.int(2, 50)}k appends (id ${this.rng.base62(6)})`;
    this.branchFacts.push(fact);
    const record = this.beginTurn();
    record.plain = false;
    this.userText(`Let's try an alternative: move the cursor store to ${backend} and measure it.`);
    const fresh: ProjectFile = { path: `src/ledger/${noun(this.rng)}-${this.rng.hex(4)}-store.ts`, language: "ts" };
    this.rounds(fresh, [[this.writeAction(fresh)], [{ name: "bash", args: { command: `pnpm exec vitest bench ${fresh.path}` }, output: `${buildLog(this.rng, this.lines(60, 200))}\n${fact}`, isError: false }]], `The ${backend} prototype works: ${fact}.`);
    this.turn++;
    this.work({ needle: "identifier", userNeedle: "decision" });
    this.onBranch = false;
    this.tick(30_000, 300_000);
    this.current = undefined;
    if (withSummary) {
      this.sm.branchWithSummary(from, `The user explored an alternative storage backend on a side branch, then came back to the original approach. Nothing from that branch is kept.`, { readFiles: [], modifiedFiles: [] });
    } else {
      this.sm.branch(from);
    }
  }

  compaction(retainNone: boolean): void {
    this.tick(2_000, 20_000);
    const keepFrom = retainNone ? undefined : this.turnsSinceCompaction[Math.max(0, this.turnsSinceCompaction.length - this.rng.int(1, 3))];
    const summary = [
      `## Goal`,
      this.foundingRequest,
      ``,
      `## Progress`,
      `- Commits so far: ${this.commits.map((c) => c.hash).join(", ") || "none"}`,
      `- Files changed: ${[...new Set(this.modified.map((m) => m.path))].slice(0, 12).join(", ") || "none"}`,
      ``,
      `## Next steps`,
      `- Keep the test suites green and continue with the user's latest request.`,
    ].join("\n");
    const id = this.sm.appendCompaction(summary, keepFrom && keepFrom !== "" ? keepFrom : null, Math.ceil(this.contextChars / 4), { readFiles: [...this.readFiles].sort(), modifiedFiles: [...new Set(this.modified.map((m) => m.path))].sort() });
    const entry = this.sm.getEntry(id);
    const firstKept = entry && entry.type === "compaction" ? entry.firstKeptEntryId : id;
    this.compactions.push({ entryId: id, firstKeptEntryId: firstKept });
    this.contextChars = 0;
    this.turnsSinceCompaction = [];
    this.readFiles = new Set();
  }

  /** Folds an earlier big tool output (null replacement hides it). */
  contextEdit(hide: boolean): void {
    const target = this.bigResults.shift();
    if (!target) return;
    this.tick(500, 5_000);
    this.sm.appendContextEdit(target.entryId, hide ? null : { content: [{ type: "text", text: `[output folded by context-fold: recall handle r:${this.rng.hex(8)}]` }] });
  }

  /** Extension state and an in-context extension message, as extensions write them. */
  extensionEntries(): void {
    this.tick(100, 2_000);
    this.sm.appendCustomEntry("context-fold.state", { turn: this.turn, folded: this.rng.int(0, 40) });
    this.tick(10, 500);
    this.sm.appendCustomMessageEntry("context-fold.note", `Folded ${this.rng.int(1, 30)} stale tool outputs.`, false, { turn: this.turn });
  }

  /** An entry type Pi does not know (a future version's), appended into the tree like any other. */
  unknownEntry(idSource: SeededRandom): void {
    this.tick(100, 2_000);
    const sm = this.sm as unknown as { _appendEntry(entry: object): void };
    let id = idSource.hex(8);
    while (this.sm.getEntry(id)) id = idSource.hex(8);
    sm._appendEntry({ type: "checkpoint_marker", id, parentId: this.sm.getLeafId(), timestamp: new Date(this.clock.now).toISOString(), reason: "auto", turn: this.turn });
  }

  maybeModelChange(): void {
    this.tick(1_000, 10_000);
    this.sm.appendModelChange("anthropic", this.rng.pick(["claude-opus-4-1", "claude-sonnet-4-5"]));
  }
}
