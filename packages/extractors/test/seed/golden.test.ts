// Byte-identical output, pinned: the digests of every seed-record form over the real fixtures and
// generated sessions were captured before the extraction was optimised (test/seed/__golden__/), so any
// change in what extraction returns fails here. `input` differing means the reader or generator changed.
import { describe, expect, it } from "vitest";
import { describeShared } from "@context-fold/test-support";
import { goldenDigest, goldenSessions } from "./golden-cases.js";

const cases = await goldenSessions();

function pin(name: string, load: Parameters<typeof goldenDigest>[0]): void {
  it(`${name}: records and fields are byte-identical to the golden digests`, async () => {
    const digest = await goldenDigest(load);
    await expect(`${JSON.stringify(digest, null, 2)}\n`).toMatchFileSnapshot(`./__golden__/${name}.json`);
  });
}

describeShared("seed extraction golden: real session fixtures", () => {
  for (const [name, load] of cases) if (name.startsWith("fixture-")) pin(name, load);
});

describe("seed extraction golden: generated sessions", () => {
  for (const [name, load] of cases) if (name.startsWith("generated-")) pin(name, load);
});
