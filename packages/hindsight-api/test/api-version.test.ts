import { describe, expect, test } from "vitest";
import { PATCH_MIN_VERSION, versionAtLeast } from "../src/index.js";

describe("versionAtLeast", () => {
  test("compares dotted versions part by part, as numbers", () => {
    expect(versionAtLeast("0.8.2", "0.8.2")).toBe(true);
    expect(versionAtLeast("0.8.10", "0.8.2")).toBe(true);
    expect(versionAtLeast("0.10.0", "0.9.9")).toBe(true);
    expect(versionAtLeast("1.0.0", "0.8.2")).toBe(true);
    expect(versionAtLeast("0.8.1", "0.8.2")).toBe(false);
    expect(versionAtLeast("0.7.99", "0.8.0")).toBe(false);
  });
  test("a missing part counts as 0; a pre-release or build suffix is ignored", () => {
    expect(versionAtLeast("0.9", "0.9.0")).toBe(true);
    expect(versionAtLeast("0.8", "0.8.2")).toBe(false);
    expect(versionAtLeast("0.8.2-rc1", "0.8.2")).toBe(true);
    expect(versionAtLeast("0.8.2+local", "0.8.2")).toBe(true);
  });
  test("text that is not a number counts as 0", () => {
    expect(versionAtLeast("dev", "0.0.1")).toBe(false);
    expect(versionAtLeast("dev", "0.0.0")).toBe(true);
  });
  test("PATCH /memories/{id} arrives in 0.8.2", () => {
    expect(PATCH_MIN_VERSION).toBe("0.8.2");
  });
});
