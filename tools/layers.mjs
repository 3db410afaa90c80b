// The layer map of architecture.md, declared once: which workspace packages each package may import.
// tools/check-layers.mjs (manifests, imports, cycles) and eslint.config.js (no-restricted-imports) both
// read it, so a new arrow is drawn here and nowhere else.
//
// durable-fs is the one leaf every package may import (its declared exception to "stands alone"):
// durable writes and the append lock have one home. hindsight-api is the leaf the bank and the client
// share (which Hindsight API version has which feature), so neither of those two imports the other:
// the client stands alone (architecture.md), and may use the bank only in its tests (a devDependency).
export const layers = {
  "durable-fs": [],
  "seed-index-format": ["durable-fs"],
  "ledger-reader": ["durable-fs", "seed-index-format"],
  extractors: ["durable-fs", "seed-index-format", "ledger-reader"],
  "summary-formatter": ["durable-fs", "seed-index-format", "ledger-reader", "extractors"],
  "recall-engine": ["durable-fs", "seed-index-format", "ledger-reader"],
  "hindsight-api": [],
  "hindsight-local": ["durable-fs", "hindsight-api"],
  "memory-gardener-client": ["durable-fs", "hindsight-api"],
};
