// The gardener's data shapes: phase files, acks, clusters, actions, the report, and its typed errors.
import type { FactType } from "../client/types.js";

export type SamplingMode = "recent" | "probe" | "window";
export type ClusterKind = "near_duplicate" | "contradiction" | "expired_ephemera";
export type GardenAction = "keep" | "supersede" | "expire" | "flag_contradiction";

/** Light metadata per memory in the manifest: never the body (the preview is truncated). */
export interface ManifestEntry {
  readonly id: string;
  readonly date: string | null;
  readonly factType: FactType;
  readonly preview: string;
  /** The blocking key: memories that could cluster share it, so they land in the same shard. */
  readonly block: string;
}

export interface ManifestFile {
  readonly version: 1;
  readonly bankId: string;
  readonly mode: SamplingMode;
  readonly total: number;
  readonly fetched: number;
  readonly skipped: { readonly invalidated: number; readonly observation: number; readonly outOfWindow: number; readonly duplicateIds: number };
  readonly shards: readonly (readonly string[])[];
  readonly entries: readonly ManifestEntry[];
}

export interface ManifestAck {
  readonly ok: true;
  readonly path: string;
  readonly total: number;
  readonly fetched: number;
  readonly shardCount: number;
}

/** A member of a candidate cluster, with what the judge needs to decide (the full text, fetched by id). */
export interface ClusterMember {
  readonly id: string;
  readonly text: string;
  readonly date: string | null;
  readonly factType: FactType;
}

export interface CandidateCluster {
  /** Stable id: `<kind>:<smallest member id>`. */
  readonly id: string;
  readonly kind: ClusterKind;
  readonly members: readonly ClusterMember[];
  /** Why the members were grouped (e.g. "same subject, different endpoint: /v1/auth vs /v2/auth"). */
  readonly evidence: string;
}

export interface ShardFile {
  readonly version: 1;
  readonly shard: number;
  readonly fetched: number;
  readonly missing: readonly string[];
  readonly clusters: readonly CandidateCluster[];
}

export interface ShardAck {
  readonly ok: true;
  readonly path: string;
  readonly shardCount: number;
  readonly clusters: number;
}

export interface MemberAction {
  readonly id: string;
  readonly clusterId: string;
  readonly kind: ClusterKind;
  readonly action: GardenAction;
  /** For `supersede`: the memory that stays. */
  readonly survivorId?: string;
  readonly reason: string;
  readonly text: string;
}

export interface ActionsFile {
  readonly version: 1;
  readonly judge: string;
  readonly clusters: readonly CandidateCluster[];
  readonly actions: readonly MemberAction[];
  /** Judge verdicts the code overrode (the flag_contradiction rule and shape checks). */
  readonly overrides: number;
}

export interface JudgeAck {
  readonly ok: true;
  readonly path: string;
  readonly clusters: number;
  readonly actions: number;
}

export interface FailedApply {
  readonly id: string;
  /** HTTP status of the failing call; 0 when no HTTP answer arrived. */
  readonly status: number;
  readonly detail: string;
}

export interface ApplyFile {
  readonly version: 1;
  readonly cap: number;
  readonly attempted: readonly string[];
  readonly applied: readonly string[];
  readonly failedApply: readonly FailedApply[];
  /** Candidates left out because the cap was reached. */
  readonly deferred: number;
  /** The ledger run this apply belongs to, whether it resumed an interrupted one, and the ledger file. */
  readonly run: number;
  readonly resumed: boolean;
  readonly ledger: string;
}

export interface ApplyAck {
  readonly ok: true;
  readonly path: string;
  readonly applied: number;
  readonly failed: number;
}

export interface ReportExample {
  readonly id: string;
  readonly action: GardenAction;
  readonly text: string;
  readonly survivorId?: string;
  readonly reason: string;
}

/** The report: exactly the contract fields, plus context for the human rendering. */
export interface GardenerReport {
  readonly manifest: { readonly total: number; readonly fetched: number; readonly shardCount: number };
  readonly clusters: Readonly<Record<ClusterKind, number>>;
  readonly actions: Readonly<Record<GardenAction, number>>;
  readonly applied: number;
  readonly failedApply: readonly FailedApply[];
  readonly contradictions: readonly { readonly members: readonly { readonly id: string; readonly text: string }[] }[];
  readonly context: {
    readonly bankId: string;
    readonly mode: SamplingMode;
    readonly now: string;
    readonly apply: boolean;
    readonly cap: number;
    readonly deferred: number;
    /** With apply: the ledger run, whether it resumed an interrupted one, and distinct memories attempted so far. */
    readonly run: { readonly number: number; readonly resumed: boolean; readonly attempted: number; readonly ledger: string } | null;
    readonly judge: string;
    readonly examples: readonly ReportExample[];
  };
}

/** The contract JSON (what `context-fold garden --json` prints): the report without its context. */
export type GardenerReportJson = Omit<GardenerReport, "context">;

/** Bad options (missing probes, a window without bounds, a cap above 25 …). */
export class GardenerOptionsError extends Error {
  readonly code = "GARDENER_OPTIONS" as const;
  readonly option: string;
  constructor(option: string, message: string) {
    super(`${option}: ${message}`);
    this.name = "GardenerOptionsError";
    this.option = option;
  }
}

/** A phase file that cannot be read or belongs to a different run. */
export class GardenerStateError extends Error {
  readonly code = "GARDENER_STATE" as const;
  readonly file: string;
  constructor(file: string, message: string) {
    super(`${file}: ${message}`);
    this.name = "GardenerStateError";
    this.file = file;
  }
}
