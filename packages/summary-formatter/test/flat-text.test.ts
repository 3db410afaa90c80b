// `flat` skips its regex when the text is already one line of printable ASCII with single spaces; the
// result must be exactly the regex's on every text, whatever it holds at either end or in between.
import { describe, expect, it } from "vitest";
import { flat } from "../src/summary-syntax.js";

const byRegex = (text: string): string => text.replace(/\s+/g, " ").trim();

describe("flat", () => {
  it("equals the whitespace regex on texts the shortcut takes and on texts it must not", () => {
    const texts = [
      "",
      " ",
      "a",
      "a b",
      "a  b",
      " a",
      "a ",
      "a\tb",
      "a\nb",
      "a\u00a0b",
      "a\u2028b",
      "\ufeffa",
      "a\u3000",
      "plain words, (#12) and `code`!",
      "é café",
      "x\u0085y",
      "tab\t",
      "~}|{",
    ];
    for (const text of texts) expect(flat(text), JSON.stringify(text)).toBe(byRegex(text));
  });

  it("equals the regex for every UTF-16 code unit, alone, between letters, doubled and next to a space", () => {
    for (let c = 0; c <= 0xffff; c++) {
      const ch = String.fromCharCode(c);
      for (const text of [ch, `a${ch}b`, `a${ch}${ch}b`, `a ${ch}b`, `${ch} a`]) if (flat(text) !== byRegex(text)) expect(flat(text), JSON.stringify(text)).toBe(byRegex(text));
    }
  });

  it("equals the regex on generated mixes of letters, spaces and other whitespace", () => {
    const alphabet = ["a", "Z", " ", " ", "\t", "\n", "\r", "\u00a0", "\u2009", "é", "~", "\u0000", "\u007f", "→", "…", "\u2028", "\u3000", "\ufeff", "\u200b", "\u0085", "\ud83d", "\ude00"];
    let seed = 7;
    const next = (): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed;
    };
    for (let n = 0; n < 2000; n++) {
      let text = "";
      const length = next() % 12;
      for (let i = 0; i < length; i++) text += alphabet[next() % alphabet.length] ?? "";
      expect(flat(text), JSON.stringify(text)).toBe(byRegex(text));
    }
  });
});
