// Parses human sizes ("100kb", "4mb", "1gb", "250000") into bytes (binary units: 1 mb = 1024 × 1024).

export class SizeParseError extends Error {
  readonly code = "E_GEN_SIZE" as const;
  constructor(readonly input: string) {
    super(`cannot read size "${input}": use a number of bytes or e.g. 100kb, 4mb, 1gb`);
    this.name = "SizeParseError";
  }
}

const UNITS: Readonly<Record<string, number>> = { "": 1, b: 1, kb: 1024, k: 1024, mb: 1024 ** 2, m: 1024 ** 2, gb: 1024 ** 3, g: 1024 ** 3 };

export function parseSize(input: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(input);
  const unit = UNITS[(match?.[2] ?? "").toLowerCase()];
  if (!match || unit === undefined) throw new SizeParseError(input);
  return Math.round(Number(match[1]) * unit);
}
