// rankWords keeps its per-block arrays for the next search (rank.ts, `wordsScratch`): a search right after
// another over the same blocks answers exactly as one made with new arrays, and so does a search over fewer
// blocks than the last one (views over the longer arrays, zeroed for its own blocks).
import { describe, expect, it } from "vitest";
import { RecallIndex } from "@context-fold/recall-engine";
import { fakeSession, type FakeBlock } from "./fake-session.js";

const blocks: FakeBlock[] = [
  { kind: "user", text: "the refreshToken rotation drops the lease; fix src/auth/lease.ts" },
  { kind: "toolCall", toolName: "bash", text: '{"command":"npm test"}' },
  { kind: "toolResult", toolName: "bash", text: "FAIL lease.test.ts: expected 2 leases, got 1\nError: lease expired" },
  { kind: "thinking", text: "the lease is renewed twice; the rotation path renews it again" },
  { kind: "text", text: "debouncing the renewals in src/auth/lease.ts" },
  { kind: "user", text: "ok, and run the lease tests again" },
  { kind: "toolResult", toolName: "read", text: "export function renew(token) { return token.lease; } // refreshToken rotation" },
  ...Array.from({ length: 12 }, (_, k): FakeBlock => ({ kind: "text", text: `step ${String(k)} renewed lease ${String(k)} without error` })),
];
const QUERIES = ["lease", "refreshToken rotation", '"lease expired"', "renew lease error", "src/auth/lease.ts", "expected 2 leases", "what did the user ask"];

describe("rankWords' arrays kept between searches", () => {
  // First in the file: the small session's answers are taken while the kept arrays are its own size.
  it("a search over fewer blocks than the last one ranks as one made with arrays of its own size", () => {
    const small = RecallIndex.build(fakeSession(blocks.slice(0, 7)));
    const large = RecallIndex.build(fakeSession([...blocks, ...blocks]));
    const alone = QUERIES.map((query) => JSON.stringify(small.search(query, { scope: "all", pageSize: 50 })));
    for (const [k, query] of QUERIES.entries()) {
      for (const before of QUERIES) {
        large.search(before, { scope: "all" });
        expect(JSON.stringify(small.search(query, { scope: "all", pageSize: 50 })), `${query} after ${before} over more blocks`).toBe(alone[k]);
      }
    }
  });

  it("a search after another over the same blocks ranks as one with new arrays", () => {
    const index = RecallIndex.build(fakeSession(blocks));
    const other = RecallIndex.build(fakeSession(blocks.slice(0, 5)));
    for (const query of QUERIES) {
      other.search("lease");
      const fresh = JSON.stringify(index.search(query, { scope: "all", pageSize: 50 }));
      for (const before of QUERIES) {
        index.search(before, { scope: "all" });
        expect(JSON.stringify(index.search(query, { scope: "all", pageSize: 50 })), `${query} after ${before}`).toBe(fresh);
      }
    }
  });
});
