// Handoff and inventory inside a real Pi with a session runtime: `/fold-handoff --new` writes the handoff
// beside the seed index and starts a new session seeded with it (the model receives it on the next
// prompt); `/context-inventory` shows a widget whose numbers add up and match Pi's own context usage
// within the estimator's error; without a UI the inventory is text.
import { existsSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { handoffPath, seedIndexPath } from "@context-fold/seed-index-format";
import { tempDir } from "@context-fold/test-support";
import { HANDOFF_MESSAGE } from "../../src/handoff/handoff-command.js";
import { INVENTORY_WIDGET } from "../../src/inventory/inventory-command.js";
import { startPiWith } from "../compaction/support/compaction-pi.js";
import { CORRECTION, FOUNDING, jobResponder, type RuntimePi, startRuntimePi } from "../support/runtime-pi.js";

const WINDOW = 24_000;
const STUB = /\[context-fold ([a-z2-7]{10,12})\]/;

/** The number after `label` at the start of an inventory line ("  total        12345"). */
function figure(lines: readonly string[], label: string): number {
  const line = lines.find((l) => l.trimStart().startsWith(`${label} `));
  const m = line === undefined ? null : /^\s*[a-z ,]+?\s+(\d+)/.exec(line);
  if (m === null) throw new Error(`no ${label} line in:\n${lines.join("\n")}`);
  return Number(m[1]);
}

describe("handoff and inventory in a headless Pi", () => {
  const dir = tempDir("pi-handoff-");
  let pi: RuntimePi;
  let firstFile = "";
  let firstId = "";

  beforeAll(async () => {
    pi = await startRuntimePi({ dir, contextWindow: WINDOW, env: { CONTEXT_FOLD_THRESHOLD: "0.3", CONTEXT_FOLD_TAIL: "0.1" } });
    await pi.session.prompt(FOUNDING);
    for (let n = 1; n <= 3; n++) await pi.session.prompt(`job ${String(n)}`);
    await pi.session.prompt(CORRECTION);
    for (let n = 4; n <= 9; n++) await pi.session.prompt(`job ${String(n)}`);
    firstFile = pi.session.sessionManager.getSessionFile() ?? "";
    firstId = pi.session.sessionManager.getSessionId();
  }, 120_000);
  afterAll(async () => {
    await pi.dispose();
  });

  test("the session folded (so the handoff has recovery codes to carry)", () => {
    const last = JSON.stringify(pi.calls.at(-1) ?? []);
    expect(STUB.test(last)).toBe(true);
  });

  test("/context-inventory: a widget whose buckets add up to the total, matching Pi's own context usage", async () => {
    await pi.session.prompt("/context-inventory");
    const lines = pi.widgets.get(INVENTORY_WIDGET);
    expect(lines).toBeDefined();
    const widget = lines ?? [];
    const total = figure(widget, "total");
    const floor = figure(widget, "floor");
    const parts = floor + figure(widget, "tool output") + figure(widget, "other, dormant") + figure(widget, "other, live");
    expect(parts).toBe(total);
    // The floor is measured from what Pi gives us: the system prompt and the active tools' declarations.
    expect(floor).toBeGreaterThan(100);
    expect(widget.join("\n")).toMatch(/system prompt \d+, tools \d+/);
    // Pi's own count (the provider's usage of the last call, plus estimates after it).
    const usage = pi.session.getContextUsage();
    expect(usage?.tokens).toBeGreaterThan(0);
    const reported = usage?.tokens ?? 0;
    // Both are character estimates (ours ceil(bytes/4) per block, the faux provider's ceil(chars/4) of the
    // joined prompt with role labels): they may differ by a few percent, never more than 10 %.
    expect(Math.abs(total - reported) / reported).toBeLessThan(0.1);
    // Per tool, with flags: bash output folded, the older outputs dormant.
    const text = widget.join("\n");
    expect(text).toContain("Tool output by tool:");
    expect(text).toMatch(/\n {2}bash\s+\d+/);
    expect(text).toMatch(/folded/);
    expect(text).toMatch(/dormant/);
    expect(text).toContain(`Pi's own count: ${String(reported)} tokens`);
    expect(pi.notices.some((n) => n.text.includes("inventory shown above the editor"))).toBe(true);
    await pi.session.prompt("/context-inventory off");
    expect(pi.widgets.get(INVENTORY_WIDGET)).toBeUndefined();
  });

  test("/fold-handoff without --new: the handoff is written, no new session (the UI declined)", async () => {
    await pi.session.prompt("/fold-handoff Finish the frobnicator and ship it");
    const path = handoffPath(firstFile, firstId);
    expect(existsSync(path)).toBe(true);
    expect(pi.session.sessionManager.getSessionId()).toBe(firstId);
    const text = readFileSync(path, "utf8");
    expect(text).toContain("Finish the frobnicator and ship it");
    // Beside the seed index.
    expect(path.startsWith(seedIndexPath(firstFile, firstId).replace(/seed-index\.jsonl$/, ""))).toBe(true);
  });

  test("/fold-handoff --new: goal, founding request, decisions and recovery codes; a new session seeded with it", async () => {
    await pi.session.prompt("/fold-handoff --new Ship the frobnicator");
    const path = handoffPath(firstFile, firstId);
    const text = readFileSync(path, "utf8");
    expect(text).toContain("Ship the frobnicator");
    expect(text).toContain(FOUNDING);
    expect(text).toContain(CORRECTION);
    // Recovery pointers: fold codes from the seed index, with the command that brings each back.
    const codes = [...text.matchAll(/--code ([a-z2-7]{10,12})/g)].map((m) => m[1]);
    expect(codes.length).toBeGreaterThan(0);
    // A new session: another id, the old file as parent, the handoff as its first (displayed) message.
    const manager = pi.session.sessionManager;
    expect(manager.getSessionId()).not.toBe(firstId);
    expect(manager.getHeader()?.parentSession).toBe(firstFile);
    const seeded = manager.getEntries().filter((e) => e.type === "custom_message" && e.customType === HANDOFF_MESSAGE);
    expect(seeded).toHaveLength(1);
    const seed = seeded[0];
    const content = seed?.type === "custom_message" && typeof seed.content === "string" ? seed.content : "";
    expect(content).toContain(text);
    expect(pi.notices.some((n) => n.text.includes("new session seeded with the handoff"))).toBe(true);
    // The model receives the handoff with the first prompt of the new session.
    const before = pi.calls.length;
    await pi.session.prompt("continue");
    const sent = JSON.stringify(pi.calls[before] ?? []);
    expect(sent).toContain(JSON.stringify(FOUNDING).slice(1, -1));
    expect(sent).toContain(codes[0] ?? "no code");
  });
});

describe("inventory without a UI (print mode)", () => {
  test("the inventory goes out as text on stdout", async () => {
    const dir = tempDir("pi-handoff-print-");
    const pi = await startRuntimePi({ dir, contextWindow: WINDOW, ui: false });
    const written: string[] = [];
    const original = process.stdout.write.bind(process.stdout);
    try {
      await pi.session.prompt(FOUNDING);
      await pi.session.prompt("job 1");
      process.stdout.write = ((chunk: string | Uint8Array) => {
        written.push(typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8"));
        return true;
      }) as typeof process.stdout.write;
      await pi.session.prompt("/context-inventory");
    } finally {
      process.stdout.write = original;
      await pi.dispose();
    }
    const text = written.join("");
    expect(text).toContain("Context inventory at turn");
    expect(text).toMatch(/\n {2}bash\s+1\s+\d+/);
  }, 60_000);
});

describe("handoff where the host offers no new session", () => {
  test("an SDK session without a session runtime: the handoff is written and the user is told where to find it", async () => {
    const dir = tempDir("pi-handoff-sdk-");
    const respond = jobResponder();
    const pi = await startPiWith({ PI_CODING_AGENT_DIR: dir }, { dir, contextWindow: WINDOW, respond: (messages) => respond(messages) });
    try {
      await pi.session.prompt(FOUNDING);
      await pi.session.prompt("job 1");
      const file = pi.manager.getSessionFile() ?? "";
      const id = pi.manager.getSessionId();
      await pi.session.prompt("/fold-handoff --new Ship it");
      const path = handoffPath(file, id);
      expect(readFileSync(path, "utf8")).toContain("Ship it");
      expect(pi.manager.getSessionId()).toBe(id);
      const told = pi.notices.find((n) => n.text.includes("could not start a new session"));
      expect(told?.text).toContain(path);
    } finally {
      pi.dispose();
    }
  }, 60_000);
});
