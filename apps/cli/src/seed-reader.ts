// The seed index's record readers, bundled alone into dist/recall-sessions-seed-reader.cjs (tsup.config.ts):
// the history search's bundle requires that file on the first call of one of these, so the records' schemas
// (typebox) are decoded only by a search that reads a session's seed index.
export { classifyLine, forEachSpan, readSeedIndexFile, readSeedIndexFileLean } from "@context-fold/seed-index-format";
