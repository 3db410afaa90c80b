// Recall over the live session for the tool and the /recall command: one index per session, grown as
// Pi appends; fold codes resolved through the seed index and verified against the session file.
import { existsSync } from "node:fs";
import {
  HistoryIndex,
  openRecall,
  type PageSyntax,
  piSessionsDir,
  recallFile,
  renderExpanded,
  renderResults,
  renderSessionNames,
  renderSpans,
  type SessionRecall,
  spanRecall,
} from "@context-fold/recall-engine";

/** The scope that searches every session of this project (its sessions folder's history index), not this one. */
export const SESSIONS_SCOPE = "sessions";

export interface SearchRequest {
  readonly query?: string | undefined;
  readonly scope?: string | undefined;
  readonly page?: number | undefined;
  /** How the asking surface names a page in its "More:" hint (the tool: `page: 2`; `/recall`: `page:2`). */
  readonly pageSyntax?: PageSyntax | undefined;
}

export class RecallService {
  readonly sessionFile: string;
  /** The project's folder: whose sessions `scope: "sessions"` searches, and how Pi's sessions folder is found. */
  readonly cwd: string;
  #recall: Promise<SessionRecall> | undefined;
  #history: HistoryIndex | undefined;

  constructor(sessionFile: string, cwd: string = process.cwd()) {
    this.sessionFile = sessionFile;
    this.cwd = cwd;
  }

  /** The history index of Pi's sessions folder (found as the CLI finds it: environment, settings, cwd). */
  #sessions(): HistoryIndex {
    this.#history ??= HistoryIndex.for(piSessionsDir({ cwd: this.cwd }));
    return this.#history;
  }

  /** Pi has written the session file (it does with the first reply): there is something to recall. */
  written(): boolean {
    return existsSync(this.sessionFile);
  }

  async #open(): Promise<SessionRecall> {
    if (this.#recall === undefined) {
      const opening = openRecall(this.sessionFile);
      this.#recall = opening;
      // A failed open is retried on the next request instead of being cached.
      opening.catch(() => {
        if (this.#recall === opening) this.#recall = undefined;
      });
      return opening;
    }
    const recall = await this.#recall;
    await recall.refresh();
    return recall;
  }

  /** Search results (or the latest entries when the query is empty), as text. */
  async search(request: SearchRequest): Promise<string> {
    const query = request.query?.trim() ?? "";
    if (request.scope === SESSIONS_SCOPE) {
      if (query.length === 0) return "scope sessions searches every session of this project: give a query.";
      const found = await this.#sessions().search(query, { project: this.cwd, ...(request.page === undefined ? {} : { page: request.page }) });
      const rendered = renderResults(found, request.pageSyntax === undefined ? {} : { pageSyntax: request.pageSyntax });
      return `${rendered}${renderSessionNames(found.named)}${found.total > 0 ? "To read an entry in full, pass its #N as expand with the session it names.\n" : ""}`;
    }
    const recall = await this.#open();
    if (query.length === 0) return renderResults(recall.browse(request.scope === undefined ? {} : { scope: request.scope }));
    return renderResults(
      recall.search(query, {
        ...(request.scope === undefined ? {} : { scope: request.scope }),
        ...(request.page === undefined ? {} : { page: request.page }),
      }),
      request.pageSyntax === undefined ? {} : { pageSyntax: request.pageSyntax },
    );
  }

  /** Full text of `#N` blocks, each checked against the session file as it is now. */
  async expand(indices: readonly number[], session?: string): Promise<string> {
    if (session !== undefined && session.trim().length > 0) {
      const { entries } = await this.#sessions().expand(session.trim(), indices);
      return renderExpanded(entries, { session: session.trim() });
    }
    const recall = await this.#open();
    return renderExpanded(recall.expand(indices));
  }

  /** The full text behind a fold code, verified by sha256 against the session file. */
  async byCode(code: string, session?: string): Promise<{ text: string; verified: boolean }> {
    let result;
    if (session !== undefined && session.trim().length > 0) {
      const answer = await recallFile(await this.#sessions().resolve(session.trim()), { spans: { code, view: "archival" } });
      if (answer.kind !== "spans") throw new Error(`recall answered ${answer.kind} to a fold code`);
      result = answer.result;
    } else {
      const recall = await this.#open();
      result = await spanRecall(recall.session, { code, view: "archival" });
    }
    return { text: renderSpans(result), verified: result.spans.length > 0 && result.spans.every((s) => s.status === "verified") };
  }
}
