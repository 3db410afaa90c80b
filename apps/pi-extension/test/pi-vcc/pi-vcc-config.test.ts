// Mapping pi-vcc's config key by key: the deprecated defaultThreshold, a scaffolded default of ours
// counting as unset, a value of ours or a variable counting as set, bad values refused with the reason.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import { scaffoldText } from "../../src/config/settings.js";
import { mapPiVccConfig, PI_VCC_CONFIG_FILE, PI_VCC_DEBUG_DIR, piVccNotice, takeOverPiVccConfig } from "../../src/config/pi-vcc-config.js";

const SCAFFOLD = JSON.parse(scaffoldText()) as Record<string, unknown>;
const unset = { env: {}, file: SCAFFOLD, fileName: "context-fold.json" };

describe("pi-vcc config mapping", () => {
  test("the deprecated defaultThreshold is taken as globalThreshold; scaffolded defaults of ours count as unset", () => {
    const out = mapPiVccConfig("vcc.json", { defaultThreshold: { reserveTokens: 9000 }, overrideDefaultCompaction: false, debug: true }, unset);
    expect(JSON.parse(out.values["CONTEXT_FOLD_THRESHOLDS"] ?? "{}")).toEqual({ globalThreshold: { reserveTokens: 9000 } });
    expect(out.values["CONTEXT_FOLD_OVERRIDE_COMPACTION"]).toBe("false");
    expect(out.values["CONTEXT_FOLD_DEBUG_DIR"]).toBe(PI_VCC_DEBUG_DIR);
    expect(out.taken).toEqual(["defaultThreshold (deprecated; as globalThreshold)", "overrideDefaultCompaction", `debug (snapshots in ${PI_VCC_DEBUG_DIR})`]);
    expect(out.notTaken).toEqual([]);
  });

  test("halves of the thresholds are taken apart: ours global stays, pi-vcc's models come in", () => {
    const file = { compaction: { modelThresholds: {}, globalThreshold: { compactPercent: 80 } } };
    const out = mapPiVccConfig("vcc.json", { modelThresholds: { m: { compactPercent: 60 } }, globalThreshold: { compactPercent: 50 } }, { env: {}, file, fileName: "cf.json" });
    expect(JSON.parse(out.values["CONTEXT_FOLD_THRESHOLDS"] ?? "{}")).toEqual({ modelThresholds: { m: { compactPercent: 60 } }, globalThreshold: { compactPercent: 80 } });
    expect(out.taken).toEqual(["modelThresholds"]);
    expect(out.notTaken).toEqual([{ key: "globalThreshold", reason: "compaction.globalThreshold is set in cf.json" }]);
  });

  test("a value of ours that differs from the scaffold, or a variable, keeps ours; bad and unknown values are refused with the reason", () => {
    const file = { compaction: { overrideDefaultCompaction: false } };
    const out = mapPiVccConfig(
      "vcc.json",
      { overrideDefaultCompaction: true, debug: true, modelThresholds: { m: { compactPercent: 150 } }, lang: "en" },
      { env: { CONTEXT_FOLD_DEBUG_DIR: "/x" }, file, fileName: "cf.json" },
    );
    expect(out.values).toEqual({});
    expect(out.taken).toEqual([]);
    expect(out.notTaken.map((n) => n.key)).toEqual(["modelThresholds", "overrideDefaultCompaction", "debug", "lang"]);
    expect(out.notTaken[0]?.reason).toContain("compactPercent must be a number from 1 to 99");
    expect(out.notTaken[1]?.reason).toBe("compaction.overrideDefaultCompaction is set in cf.json");
    expect(out.notTaken[2]?.reason).toBe("CONTEXT_FOLD_DEBUG_DIR is set");
    expect(piVccNotice(out)).toContain("Took over nothing.");
  });

  test("a broken pi-vcc file: nothing taken, the notice names file, line and byte offset; no file: nothing at all", () => {
    const dir = tempDir("pi-vcc-broken-");
    expect(takeOverPiVccConfig({}, dir, unset)).toBeUndefined();
    writeFileSync(join(dir, PI_VCC_CONFIG_FILE), '{\n  "debug": true,\n}\n');
    const out = takeOverPiVccConfig({}, dir, unset);
    expect(out?.values).toEqual({});
    expect(piVccNotice(out ?? { file: "", values: {}, taken: [], notTaken: [], error: "x" })).toMatch(/pi-vcc-config\.json:3:\d+ \(byte \d+\): not valid JSON/);
  });
});
