// Recall over the live session for the tool and the /recall command: one index per session, grown as
// Pi appends; fold codes resolved through the seed index and verified against the session file.
import { existsSync } from "node:fs";
import { openRecall, type PageSyntax, renderExpanded, renderResults, renderSpans, type SessionRecall, spanRecall } from "@context-fold/recall-engine";

export interface SearchRequest {
  readonly query?: string | undefined;
  readonly scope?: string | undefined;
  readonly page?: number | undefined;
  /** How the asking surface names a page in its "More:" hint (the tool: `page: 2`; `/recall`: `page:2`). */
  readonly pageSyntax?: PageSyntax | undefined;
}

export class RecallService {
  readonly sessionFile: string;
  #recall: Promise<SessionRecall> | undefined;

  constructor(sessionFile: string) {
    this.sessionFile = sessionFile;
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
    const recall = await this.#open();
    const query = request.query?.trim() ?? "";
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
  async expand(indices: readonly number[]): Promise<string> {
    const recall = await this.#open();
    return renderExpanded(recall.expand(indices));
  }

  /** The full text behind a fold code, verified by sha256 against the session file. */
  async byCode(code: string): Promise<{ text: string; verified: boolean }> {
    const recall = await this.#open();
    const result = await spanRecall(recall.session, { code, view: "archival" });
    return { text: renderSpans(result), verified: result.spans.length > 0 && result.spans.every((s) => s.status === "verified") };
  }
}
