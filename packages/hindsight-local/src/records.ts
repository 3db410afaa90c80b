// The stored shapes of the local bank (what the journal holds), independent of the wire shapes.
export type StoredFactType = "world" | "experience" | "observation";

export interface StoredMemory {
  readonly id: string;
  readonly bankId: string;
  /** Creation order within the whole store; breaks ties in the list order. */
  readonly seq: number;
  readonly createdAt: string;
  readonly text: string;
  readonly context: string | null;
  readonly factType: StoredFactType;
  readonly documentId: string | null;
  readonly mentionedAt: string | null;
  readonly occurredStart: string | null;
  readonly occurredEnd: string | null;
  readonly entities: readonly string[];
  readonly tags: readonly string[];
  readonly metadata: Readonly<Record<string, string>>;
  readonly proofCount: number;
  readonly state: "valid" | "invalidated";
  readonly invalidationReason: string | null;
  readonly invalidatedAt: string | null;
  readonly editedAt: string | null;
}

export interface StoredBank {
  readonly bankId: string;
  readonly name: string;
  readonly mission: string;
  readonly disposition: { readonly skepticism: number; readonly literalism: number; readonly empathy: number };
  readonly createdAt: string;
  readonly updatedAt: string;
}
