import { existsSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hasShared, sessionFixtures, tempDir } from "../src/index.js";

describe("test-support", () => {
  it("lists the shared session fixtures when ../shared is present", () => {
    expect(sessionFixtures().length > 0).toBe(hasShared);
  });
  it("makes a real temp directory", () => {
    expect(existsSync(tempDir())).toBe(true);
  });
});
