// Test helpers shared by every workspace member's tests.
export { sharedDir, hasShared, sharedFixture, sessionFixtures, describeShared } from "./shared.js";
export { tempDir } from "./temp-dir.js";
export { type FaultKind, type FaultyFs, faultyFs, SimulatedCrash } from "./faulty-fs.js";
export { LINEAR_TIME_MS } from "./linear-time.js";
export { type RawSessionTruth, rawSessionTruth } from "./raw-truth.js";
