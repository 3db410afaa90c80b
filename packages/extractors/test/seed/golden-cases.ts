// The cases pinned by the golden test: the real session fixtures and a few generated sessions. Each case is
// reduced to sha256 digests of its input blocks and of its outputs, so the golden files hold no session text.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { readSession, type Session } from "@context-fold/ledger-reader";
import { generateSession } from "@context-fold/session-gen";
import { hasShared, sessionFixtures, sharedFixture, tempDir } from "@context-fold/test-support";
import { sessionOutputs } from "./golden-outputs.js";

export interface GoldenDigest {
  /** sha256 of the input blocks (JSON): when this differs, the reader or generator changed, not extraction. */
  readonly input: string;
  /** sha256 of every output of the case (JSON, one document per line). */
  readonly output: string;
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Generated sessions pinned beside the real fixtures: seed and target size. */
export const GENERATED: readonly { seed: number; size: number }[] = [
  { seed: 7, size: 4 << 20 },
  { seed: 42, size: 1 << 20 },
  { seed: 1001, size: 512 << 10 },
];

/**
 * The sessions of ../shared/fixtures/real that open with a session header (a headerless fragment is no
 * session `readSession` reads), or [] without ../shared.
 */
function realSessionFixtures(): string[] {
  if (!hasShared) return [];
  const dir = sharedFixture("real");
  return readdirSync(dir)
    .filter((f) => f.endsWith(".jsonl"))
    .sort()
    .map((f) => join(dir, f))
    .filter((file) => {
      const first = readFileSync(file, "utf8").split("\n", 1)[0] ?? "";
      try {
        return (JSON.parse(first) as { type?: unknown }).type === "session";
      } catch {
        return false;
      }
    });
}

/** Case name → the session it reads. Real fixtures only when ../shared is present. */
export async function goldenSessions(): Promise<Map<string, () => Promise<Session>>> {
  const cases = new Map<string, () => Promise<Session>>();
  for (const file of sessionFixtures()) cases.set(`fixture-${basename(file, ".jsonl")}`, () => readSession(file));
  for (const file of realSessionFixtures()) cases.set(`fixture-real-${basename(file, ".jsonl")}`, () => readSession(file));
  for (const { seed, size } of GENERATED) {
    cases.set(`generated-seed${String(seed)}-${String(size)}b`, async () => {
      const file = join(tempDir("seed-golden-"), "session.jsonl");
      await generateSession(file, { seed, size });
      return readSession(file);
    });
  }
  return Promise.resolve(cases);
}

/** The digests of one case. */
export async function goldenDigest(load: () => Promise<Session>): Promise<GoldenDigest> {
  const { input, output } = sessionOutputs(await load());
  return { input: sha256(input), output: sha256(output) };
}
