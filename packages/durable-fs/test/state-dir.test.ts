import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { stateDir } from "../src/index.js";

describe("stateDir: the one rule for where user-level state lives", () => {
  test("an absolute XDG_STATE_HOME is used, trimmed", () => {
    expect(stateDir("bank", { XDG_STATE_HOME: " /var/state " }, "/home/u")).toBe(join("/var/state", "context-fold", "bank"));
  });
  test("unset, empty, blank or relative XDG_STATE_HOME falls back to ~/.local/state", () => {
    for (const value of [undefined, "", "   ", "state", "./state"]) {
      expect(stateDir("history", { XDG_STATE_HOME: value }, "/home/u")).toBe(join("/home/u", ".local", "state", "context-fold", "history"));
    }
  });
});
