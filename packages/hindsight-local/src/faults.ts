// Fault injection for tests: the next N answers 429/500, slow answers, and PATCHes that answer 200
// without sticking. Set at start, at runtime through the controller, the admin route or a header.

export interface FaultPlan {
  /** The next N requests answer 429 (with Retry-After: `retryAfterSeconds`). */
  readonly status429?: number;
  /** The next N requests answer 500. */
  readonly status500?: number;
  /** Every request waits this long before it is handled (0 = off). */
  readonly delayMs?: number;
  /** The next N PATCHes answer 200 with the would-be result but change nothing. */
  readonly patchNoop?: number;
  /** Retry-After sent with an injected 429 (seconds, may be fractional; omitted when undefined). */
  readonly retryAfterSeconds?: number;
  /** The next N retains (POST …/memories) are carried out, then the connection is dropped unanswered (a lost answer). */
  readonly loseAnswer?: number;
}

export interface FaultCounters {
  readonly requests: number;
  readonly injected429: number;
  readonly injected500: number;
  readonly patchNoops: number;
  readonly answersLost: number;
}

export interface FaultController {
  /** Replace the whole plan. */
  set(plan: FaultPlan): void;
  /** Drop every fault. */
  clear(): void;
  /** The plan still pending (counts left). */
  current(): FaultPlan;
  counters(): FaultCounters;
}

/** What one request should suffer, decided once when it arrives. */
export interface FaultDecision {
  readonly delayMs: number;
  readonly status: 429 | 500 | null;
  readonly retryAfterSeconds: number | undefined;
  readonly patchNoop: boolean;
  /** Carry the request out, then drop the connection instead of answering. */
  readonly loseAnswer: boolean;
}

/** Header a test may send to inject a fault into that one request: `429`, `500`, `delay=<ms>`, `patch-noop`, `lose-answer`. */
export const FAULT_HEADER = "x-hindsight-local-fault";

export class FaultState implements FaultController {
  private plan: { status429: number; status500: number; delayMs: number; patchNoop: number; loseAnswer: number; retryAfterSeconds: number | undefined };
  private stats = { requests: 0, injected429: 0, injected500: 0, patchNoops: 0, answersLost: 0 };

  constructor(plan: FaultPlan = {}) {
    this.plan = FaultState.normalize(plan);
  }

  private static normalize(plan: FaultPlan): FaultState["plan"] {
    const count = (n: number | undefined): number => (n !== undefined && Number.isFinite(n) && n > 0 ? Math.floor(n) : 0);
    return {
      status429: count(plan.status429),
      status500: count(plan.status500),
      delayMs: count(plan.delayMs),
      patchNoop: count(plan.patchNoop),
      loseAnswer: count(plan.loseAnswer),
      retryAfterSeconds: plan.retryAfterSeconds,
    };
  }

  set(plan: FaultPlan): void {
    this.plan = FaultState.normalize(plan);
  }

  clear(): void {
    this.plan = FaultState.normalize({});
  }

  current(): FaultPlan {
    const { retryAfterSeconds, ...rest } = this.plan;
    return retryAfterSeconds === undefined ? rest : { ...rest, retryAfterSeconds };
  }

  counters(): FaultCounters {
    return { ...this.stats };
  }

  /** A retain is about to be answered: true when the plan says to lose this answer (consumes one). */
  takeLostRetain(): boolean {
    if (this.plan.loseAnswer <= 0) return false;
    this.plan.loseAnswer -= 1;
    this.stats.answersLost += 1;
    return true;
  }

  /** Consume the plan for one request (and apply a one-shot header fault). */
  decide(method: string, headerValue: string | undefined): FaultDecision {
    this.stats.requests += 1;
    let delayMs = this.plan.delayMs;
    let status: 429 | 500 | null = null;
    let patchNoop = false;
    const header = (headerValue ?? "").trim().toLowerCase();
    if (header === "429") status = 429;
    else if (header === "500") status = 500;
    else if (header.startsWith("delay=")) delayMs = Math.max(0, Number.parseInt(header.slice(6), 10) || 0);
    else if (header === "patch-noop") patchNoop = method === "PATCH";
    let loseAnswer = header === "lose-answer";
    if (status === null && this.plan.status429 > 0) {
      this.plan.status429 -= 1;
      status = 429;
    } else if (status === null && this.plan.status500 > 0) {
      this.plan.status500 -= 1;
      status = 500;
    }
    if (status === null && method === "PATCH" && !patchNoop && this.plan.patchNoop > 0) {
      this.plan.patchNoop -= 1;
      patchNoop = true;
    }
    if (status !== null) loseAnswer = false;
    if (loseAnswer) this.stats.answersLost += 1;
    if (status === 429) this.stats.injected429 += 1;
    if (status === 500) this.stats.injected500 += 1;
    if (patchNoop) this.stats.patchNoops += 1;
    return { delayMs, status, retryAfterSeconds: this.plan.retryAfterSeconds, patchNoop, loseAnswer };
  }
}
