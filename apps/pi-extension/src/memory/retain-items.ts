// What a session leaves in the memory bank, built from the extractors' facts (the same extraction the
// summary uses): the founding request, what the user decided (corrections, preferences, scope
// changes) verbatim, commits with their subjects, and errors that were resolved with how. Pure. Each
// item's document id is stable — per (session, kind, #N), or per (project, hash) for a commit — so
// re-running over a grown session, or after a restart, yields the same ids and nothing twice.
import type { DurableArtifacts, SessionFacts, UserStatement } from "@context-fold/extractors";
import { toolCommand, toolPath } from "@context-fold/extractors";
import type { RetainItem } from "@context-fold/memory-gardener-client";
import { MEMORY_SOURCE_TAG, projectTag } from "./memory-service.js";

/** What an item needs to know about the block it came from. */
export interface BlockRef {
  readonly entryId: string;
  readonly timestamp: string | undefined;
  readonly toolName?: string;
  readonly args?: Readonly<Record<string, unknown>>;
}

type RefBlock = { readonly index: number; readonly entryId: string; readonly timestamp: string | undefined; readonly toolName?: string; readonly toolCallId?: string; readonly args?: Readonly<Record<string, unknown>> };

/** Refs of blocks fed so far, grown block by block (a turn adds only its own blocks). */
export class BlockRefs {
  readonly refs = new Map<number, BlockRef>();
  readonly #argsByCall = new Map<string, Readonly<Record<string, unknown>>>();

  /** Add blocks in #N order; a tool result takes its call's arguments (the result block carries none). */
  add(blocks: Iterable<RefBlock>): void {
    const list = [...blocks];
    for (const b of list) if (b.toolCallId !== undefined && b.args !== undefined) this.#argsByCall.set(b.toolCallId, b.args);
    for (const b of list) {
      const args = b.args ?? (b.toolCallId === undefined ? undefined : this.#argsByCall.get(b.toolCallId));
      this.refs.set(b.index, { entryId: b.entryId, timestamp: b.timestamp, ...(b.toolName === undefined ? {} : { toolName: b.toolName }), ...(args === undefined ? {} : { args }) });
    }
  }
}

/** The refs of a session's blocks. */
export function blockRefs(blocks: Iterable<RefBlock>): Map<number, BlockRef> {
  const refs = new BlockRefs();
  refs.add(blocks);
  return refs.refs;
}

export interface RetainInput {
  readonly facts: SessionFacts;
  readonly artifacts: DurableArtifacts;
  /** #N → block (for the entry pointer, the time, and how an error was resolved). */
  readonly blocks: ReadonlyMap<number, BlockRef>;
  readonly sessionId: string;
  readonly project: string;
}

export type MemoryKind = "founding-request" | "correction" | "preference" | "scope-change" | "commit" | "error-resolved";

const ABOUT: Readonly<Record<MemoryKind, string>> = {
  "founding-request": "The founding request of a Pi coding session",
  correction: "A correction the user made",
  preference: "A rule or preference the user stated",
  "scope-change": "A change of scope the user made",
  commit: "A commit made",
  "error-resolved": "An error that was resolved",
};

/** How the block at `#index` resolved an error: the file it edited or the command that then succeeded. */
function howResolved(block: BlockRef | undefined): string {
  if (block === undefined) return "a later change";
  const path = toolPath(block.toolName, block.args);
  if (path !== undefined) return `${block.toolName === "write" ? "writing" : "editing"} ${path}`;
  const command = toolCommand(block.toolName, block.args);
  if (command !== undefined) return `running \`${command.length > 200 ? `${command.slice(0, 199)}…` : command}\` successfully`;
  return "a later change";
}

export function retainItems(input: RetainInput): RetainItem[] {
  const { facts, artifacts, blocks, sessionId, project } = input;
  const items: RetainItem[] = [];
  const seen = new Set<string>();
  // One memory per statement: a founding request that also states a rule is retained once (first kind wins).
  const said = new Set<string>();
  const add = (kind: MemoryKind, index: number, content: string, documentId = `context-fold:${sessionId}:${kind}:${String(index)}`): void => {
    const statement = `${String(index)}\u0000${content}`;
    if (seen.has(documentId) || said.has(statement) || content.trim() === "") return;
    seen.add(documentId);
    said.add(statement);
    const block = blocks.get(index);
    items.push({
      content,
      context: `${ABOUT[kind]} in project ${project} (Pi session ${sessionId}, entry ${block?.entryId ?? "?"}).`,
      ...(block?.timestamp === undefined ? {} : { timestamp: block.timestamp }),
      metadata: { session: sessionId, entry: block?.entryId ?? "", block: String(index), kind, project },
      documentId,
      tags: [projectTag(project), MEMORY_SOURCE_TAG, `kind:${kind}`, `session:${sessionId}`],
    });
  };
  const statements = (kind: MemoryKind, list: readonly UserStatement[]): void => {
    for (const s of list) add(kind, s.index, s.text);
  };
  statements("founding-request", artifacts.initialPrompts);
  statements("correction", artifacts.corrections);
  statements("preference", facts.preferences);
  statements("scope-change", facts.scopeChanges);
  for (const c of facts.commits) {
    add("commit", c.index, `Commit ${c.hash}${c.branch === undefined ? "" : ` on ${c.branch}`}: ${c.subject}`, `context-fold:${project}:commit:${c.hash}`);
  }
  for (const o of facts.outstanding) {
    if (!o.resolved) continue;
    const where = o.file === undefined ? (o.command === undefined ? "" : ` (from \`${o.command}\`)`) : ` in ${o.file}`;
    add("error-resolved", o.index, `Resolved ${o.label} error${where}: ${o.text} — fixed by ${howResolved(o.resolvedIndex === undefined ? undefined : blocks.get(o.resolvedIndex))}.`);
  }
  return items;
}
