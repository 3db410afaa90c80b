// What a session leaves in the cross-session memory bank: its durable artifacts — the founding request(s)
// and the decisions (corrections, preferences, scope changes) — verbatim, tagged with the project. Pure:
// built from the handoff document, so the bank holds exactly what a handoff would carry.
import type { RetainItem } from "@context-fold/memory-gardener-client";
import type { HandoffDoc } from "@context-fold/summary-formatter";

/** Tag every retained item carries (besides `project:<tag>`), so they are easy to find and to garden. */
export const MEMORY_SOURCE_TAG = "source:context-fold";

/** `project:<tag>`: the tag recall filters by. */
export function projectTag(project: string): string {
  return `project:${project}`;
}

/**
 * One item per founding request and per decision. `documentId` is stable per (session, block), so a
 * later compaction of the same session sends the same ids (the retention skips ids it already sent).
 */
export function retainItems(doc: HandoffDoc, project: string): RetainItem[] {
  const items: RetainItem[] = [];
  const common = (kind: string, index: number): Pick<RetainItem, "timestamp" | "metadata" | "documentId" | "tags"> => ({
    timestamp: doc.now,
    metadata: { session: doc.sessionId, block: String(index), kind },
    documentId: `context-fold:${doc.sessionId}:${kind}:${String(index)}`,
    tags: [projectTag(project), MEMORY_SOURCE_TAG, `kind:${kind}`],
  });
  for (const founding of doc.foundingRequests) {
    items.push({ content: founding.text, context: `The founding request of a Pi coding session in project ${project}.`, ...common("founding-request", founding.index) });
  }
  for (const decision of doc.decisions) {
    const what = decision.kind === "correction" ? "A correction the user made" : decision.kind === "preference" ? "A preference the user stated" : "A change of scope the user made";
    items.push({ content: decision.text, context: `${what} in a Pi coding session in project ${project}.`, ...common(decision.kind, decision.index) });
  }
  return items;
}
