// Every bench suite, in table order. Each lives in its own file and returns BenchRows.
import type { BenchSuite } from "../types.js";
import { sessionGenSuite } from "./session-gen.js";
import { ledgerSuite } from "./ledger.js";
import { seedIndexSuite } from "./seed-index.js";
import { extractSeedSuite } from "./extract-seed.js";
import { extractFactsSuite } from "./extract-facts.js";
import { compactSuite } from "./compact.js";
import { recallSuite } from "./recall.js";
import { foldSuite } from "./fold.js";
import { compactionHookSuite } from "./compaction-hook.js";
import { handoffInventorySuite } from "./handoff-inventory.js";
import { hindsightSuite } from "./hindsight.js";
import { gardenerSuite } from "./gardener.js";
import { memorySuite } from "./memory.js";
import { turnReplaySuite } from "./turn-replay.js";
import { cliStartSuite } from "./cli-start.js";
import { cliMemorySuite } from "./cli-memory.js";

export const suites: Record<string, BenchSuite> = {
  "session-gen": sessionGenSuite,
  ledger: ledgerSuite,
  "seed-index": seedIndexSuite,
  "extract-seed": extractSeedSuite,
  "extract-facts": extractFactsSuite,
  compact: compactSuite,
  recall: recallSuite,
  fold: foldSuite,
  "compaction-hook": compactionHookSuite,
  "handoff-inventory": handoffInventorySuite,
  hindsight: hindsightSuite,
  gardener: gardenerSuite,
  memory: memorySuite,
  "turn-replay": turnReplaySuite,
  "cli-start": cliStartSuite,
  "cli-memory": cliMemorySuite,
};
