// The state one facts accumulator shares between the parts that read blocks (user messages, tool calls,
// shell outcomes): each ledger owns one kind of fact.
import type { CommitLedger } from "./commit-ledger.js";
import type { FileLedger } from "./file-ledger.js";
import type { HexLedger } from "./hex-ledger.js";
import type { OutstandingLedger } from "./outstanding-ledger.js";
import type { TurnLedger } from "./turn-lines.js";

export interface Ledgers {
  readonly cwd: string | undefined;
  readonly outstanding: OutstandingLedger;
  readonly files: FileLedger;
  readonly commits: CommitLedger;
  readonly turns: TurnLedger;
  readonly hex: HexLedger;
}
