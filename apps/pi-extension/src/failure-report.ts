// Our failures never reach Pi: each handler catches everything, records it here, and the user is told
// once per session (a notice per call would drown the conversation).

export interface Failure {
  /** Which handler failed: `context`, `context_recall`, `/recall`, … */
  readonly where: string;
  readonly message: string;
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return typeof code === "string" ? `${code}: ${error.message}` : error.message;
  }
  return String(error);
}

export class FailureReport {
  #told = false;
  readonly #failures: Failure[] = [];

  /** Record a failure; `tell` runs for the first one only. */
  report(where: string, error: unknown, tell: (text: string) => void): Failure {
    const failure: Failure = { where, message: describe(error) };
    this.#failures.push(failure);
    if (!this.#told) {
      this.#told = true;
      try {
        tell(`context-fold: ${where} failed (${failure.message}). Pi continues; this turn went out unfolded and no new folds are made in this session. Run /context-fold for status.`);
      } catch {
        // Telling the user is best effort: a broken UI must not turn our failure into Pi's.
      }
    }
    return failure;
  }

  get failures(): readonly Failure[] {
    return this.#failures;
  }
  get last(): Failure | undefined {
    return this.#failures[this.#failures.length - 1];
  }
}
