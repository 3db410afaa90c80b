// What a Pi user sees, in a real headless Pi: the footer status changes after a fold, `/context-fold`
// completes its subcommands and the codes of folded blocks, and Pi loads the extension from a file it
// lists as `context-fold`.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { tempDir } from "@context-fold/test-support";
import type { Theme } from "@earendil-works/pi-coding-agent";
import { RECALL_MESSAGE } from "../../src/commands.js";
import { FOOTER_STATUS } from "../../src/footer-status.js";
import { INVENTORY_WIDGET } from "../../src/inventory/inventory-command.js";
import { type HeadlessPi, startPi } from "../support/headless-pi.js";
import { scriptedModel } from "../support/scripted-model.js";

const WINDOW = 20_000;
const FOOTER = /^folded (\d+) · ~(\d+) tokens masked · (?:(\d+)% of window · )?next fold at 45%$/;

describe("what the user sees in a headless Pi", () => {
  let pi: HeadlessPi;
  beforeAll(async () => {
    pi = await startPi({ dir: tempDir("pi-look-"), contextWindow: WINDOW, respond: scriptedModel, tools: ["bash", "context_recall", "vcc_recall"] });
  }, 60_000);
  afterAll(() => pi.dispose());

  test("the footer status starts at no folds and changes after a fold", async () => {
    const first = pi.statuses.get(FOOTER_STATUS) ?? [];
    expect(first).toEqual(["folded 0 · ~0 tokens masked · next fold at 45%"]);
    for (let n = 1; n <= 8; n++) await pi.session.prompt(`job ${String(n)}`);
    const all = pi.statuses.get(FOOTER_STATUS) ?? [];
    const last = all[all.length - 1] ?? "";
    const m = FOOTER.exec(last);
    expect(m).not.toBeNull();
    expect(Number(m?.[1])).toBeGreaterThan(0);
    expect(Number(m?.[2])).toBeGreaterThan(0);
    expect(Number(m?.[3])).toBeGreaterThan(0);
    // It changed along the way: the fold count went up from 0.
    expect(new Set(all.map((s) => FOOTER.exec(s ?? "")?.[1])).size).toBeGreaterThan(1);
  }, 120_000);

  test("/context-fold completes its subcommands, and after `unfold ` the folded codes", async () => {
    const command = pi.session.extensionRunner?.getCommand("context-fold");
    const complete = async (prefix: string): Promise<{ value: string }[] | null> => (await command?.getArgumentCompletions?.(prefix)) ?? null;
    expect((await complete(""))?.map((i) => i.value)).toEqual(["status", "unfold ", "compact"]);
    expect((await complete("co"))?.map((i) => i.value)).toEqual(["compact"]);
    expect(await complete("zz")).toBeNull();
    const codes = (await complete("unfold "))?.map((i) => i.value) ?? [];
    expect(codes.length).toBeGreaterThan(0);
    for (const value of codes) expect(value).toMatch(/^unfold [a-z2-7]{10,12}$/);
    const one = codes[0]?.slice("unfold ".length) ?? "";
    expect((await complete(`unfold ${one.slice(0, 6)}`))?.map((i) => i.value)).toContain(`unfold ${one}`);
    // Unfolding one (completed code) refreshes the footer: one fold fewer.
    const before = FOOTER.exec((pi.statuses.get(FOOTER_STATUS) ?? []).at(-1) ?? "")?.[1];
    await pi.session.prompt(`/context-fold unfold ${one}`);
    const after = FOOTER.exec((pi.statuses.get(FOOTER_STATUS) ?? []).at(-1) ?? "")?.[1];
    expect(Number(after)).toBe(Number(before) - 1);
  }, 60_000);

  test("/context-inventory shows the stacked bar above the table", async () => {
    await pi.session.prompt("/context-inventory");
    const lines = pi.widgets.get(INVENTORY_WIDGET) ?? [];
    expect(lines[0]).toMatch(/^\[[█▓▒░× ]{50}\] \d+ tokens of 20000 \(\d+%\)$/);
    const legend = /^█ floor \d+ {2}▓ tool output (\d+) {2}▒ dormant \d+ {2}░ live \d+ {2}× reclaimable (\d+)$/.exec(lines[1] ?? "");
    expect(legend).not.toBeNull();
    expect(Number(legend?.[1])).toBeGreaterThan(0);
    // Nothing reclaimable, nothing marked (the unit tests cover the marked case cell by cell).
    if (Number(legend?.[2]) === 0) expect(lines[0]).not.toContain("×");
    expect(lines).toContain("Tool output by tool:");
  }, 60_000);

  test("recall results render through our renderers: the tool rows and the /recall message", async () => {
    const theme = { fg: (color: string, text: string) => `<${color}>${text}`, bold: (text: string) => text } as unknown as Theme;
    await pi.session.prompt("/recall NEEDLE");
    const message = pi.manager.getEntries().find((e) => e.type === "custom_message" && e.customType === RECALL_MESSAGE);
    const renderer = pi.session.extensionRunner?.getMessageRenderer(RECALL_MESSAGE);
    const shown = renderer?.(message as never, { expanded: false, outputPad: 0, keyHint: () => "", keyText: () => "", rawKeyHint: () => "" } as never, theme)?.render(200) ?? [];
    expect(shown.join("\n")).toContain("<accent>Recall results the user asked for (/recall NEEDLE)");
    expect(shown.join("\n")).toContain("more lines (expand to see all)");
    for (const name of ["context_recall", "vcc_recall"]) {
      const definition = pi.session.getToolDefinition(name);
      const rendered = definition?.renderResult?.({ content: [{ type: "text", text: "Found 1 match\n--- #1 turn 1 ---\n> #1 [user] x" }], details: { ok: true } }, { expanded: true, isPartial: false }, theme, {} as never);
      expect(rendered?.render(200).join("\n"), name).toContain("<accent>> #1 [user] x");
    }
  }, 60_000);

  test("Pi loads the extension from extensions/context-fold/index.ts (listed as context-fold)", () => {
    expect(pi.extensionPaths.some((p) => p.replaceAll("\\", "/").endsWith("/extensions/context-fold/index.ts"))).toBe(true);
  });
});
