// Builds conformance/*.json from the hand-written cases below. Expected outcomes are written here by hand;
// the script only computes what is arithmetic (byte offsets, sha256, base32 by an independent BigInt path).
// Run: pnpm --filter @context-fold/seed-index-format gen:conformance [out-dir] (default: conformance/);
// test/conformance-drift.test.ts fails when the shipped files differ from what this script writes.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const outDir = process.argv[2] === undefined ? new URL("../conformance/", import.meta.url) : pathToFileURL(`${resolve(process.argv[2])}/`);
const out = (name, value) => writeFileSync(new URL(name, outDir), `${JSON.stringify(value, null, 2)}\n`);
const sha = (text) => createHash("sha256").update(text, "utf8").digest("hex");
const AT = "2026-07-28T21:14:03.000Z";
const span = (over = {}) => ({ blockId: "r:call_abc123", code: "hw4lhrsjh7", tool: "bash", turn: 7, log: { bytes: 3, lines: 2 }, sha256: sha("a\nb"), ...over });
const rec = (over = {}) => ({
  v: 2, kind: "fold-index", harness: "pi-context-fold", session: "0193f0c2-7a1e-7000-8000-000000000001", seq: 0, at: AT, trigger: "threshold",
  files: ["src/a.ts"], commands: ["npm test"], errors: ["npm ERR! code ELIFECYCLE"], identifiers: ["RECALL_SLICE_TOKEN_CAP"],
  userMessages: [{ turn: 1, firstLine: "rebuild the fold ladder" }], spans: [span()], ...over,
});
const retract = (seq, over = {}) => ({ v: 2, kind: "fold-retract", seq, at: AT, ...over });
const j = (value) => JSON.stringify(value);
const omit = (value, key) => { const copy = { ...value }; delete copy[key]; return copy; };

// Each case: lines (strings), whether the file ends with "\n", and the expected outcome of every line.
// e: [outcome, schema verdict ("accept" | "reject" | null = not a v2 line the schema covers), errorPaths?]
const cases = [
  { name: "minimal valid v2 record (no usage)", lines: [j(rec())], e: [["record", "accept"]] },
  { name: "record with usage, every span field", lines: [j(rec({ usage: { tokens: 91000, contextWindow: 200000, fraction: 0.455 }, spans: [span({ fullOutputPath: "/tmp/tool-output/call_abc123.txt" })] }))], e: [["record", "accept"]] },
  { name: "unknown extra fields are tolerated and preserved", lines: [j(rec({ "x-extra": { keep: [1, 2] }, spans: [span({ "x-span": true })] }))], e: [["record", "accept"]], preserved: [{ line: 1, pointer: "/x-extra/keep/1", value: 2 }, { line: 1, pointer: "/spans/0/x-span", value: true }] },
  { name: "fold-retract", lines: [j(retract(3))], e: [["retract", "accept"]] },
  { name: "fold-retract with optional fields", lines: [j(retract(0, { harness: "pi-context-fold", session: "s", reason: "compaction failed" }))], e: [["retract", "accept"]] },
  { name: "blank and whitespace-only lines are skipped", lines: ["", "   \t"], e: [["skipped", null], ["skipped", null]] },
  { name: "unknown kind is skipped", lines: [j({ v: 2, kind: "fold-telemetry", seq: 1 })], e: [["skipped", null]] },
  { name: "missing kind is skipped (unknown)", lines: [j({ v: 2, seq: 1 })], e: [["skipped", null]] },
  { name: "higher v is skipped even when its shape differs", lines: [j({ v: 3, kind: "fold-index", anything: true }), j({ v: 9, kind: "fold-retract" })], e: [["skipped", null], ["skipped", null]] },
  { name: "malformed JSON in the middle is invalid", lines: ["{\"v\":2,", j(rec())], e: [["invalid", null], ["record", "accept"]] },
  { name: "torn tail: last line without newline that does not parse", lines: [j(rec()), "{\"v\":2,\"kind\":\"fold-in"], finalNewline: false, e: [["record", "accept"], ["torn-tail", null]] },
  { name: "last line without newline that parses is read normally", lines: [j(rec())], finalNewline: false, e: [["record", "accept"]] },
  { name: "last line without newline that parses but has a bad shape is invalid", lines: [j(rec({ seq: -1 }))], finalNewline: false, e: [["invalid", "reject", ["/seq"]]] },
  { name: "healed torn line (a newline was appended after it) is invalid, the next record stands", lines: ["{\"v\":2,\"kind\":\"fold-in", j(rec())], e: [["invalid", null], ["record", "accept"]] },
  { name: "CRLF line endings", lines: [`${j(rec())}\r`], e: [["record", "accept"]] },
  { name: "a JSON value that is not an object is invalid", lines: ["[1,2]", "42", "null"], e: [["invalid", "reject", [""]], ["invalid", "reject", [""]], ["invalid", "reject", [""]]] },
  { name: "negative seq", lines: [j(rec({ seq: -1 }))], e: [["invalid", "reject", ["/seq"]]] },
  { name: "fractional seq", lines: [j(rec({ seq: 1.5 }))], e: [["invalid", "reject", ["/seq"]]] },
  { name: "v as a string", lines: [j(rec({ v: "2" }))], e: [["invalid", "reject", ["/v"]]] },
  { name: "missing required fields", lines: [j(omit(rec(), "spans")), j(omit(rec(), "userMessages")), j(omit(rec(), "harness")), j(omit(rec(), "at"))], e: [["invalid", "reject", ["/spans"]], ["invalid", "reject", ["/userMessages"]], ["invalid", "reject", ["/harness"]], ["invalid", "reject", ["/at"]]] },
  { name: "unknown trigger", lines: [j(rec({ trigger: "manual" }))], e: [["invalid", "reject", ["/trigger"]]] },
  { name: "at is not ISO-8601", lines: [j(rec({ at: "yesterday" })), j(rec({ at: "2026-07-28 21:14:03" }))], e: [["invalid", "reject", ["/at"]], ["invalid", "reject", ["/at"]]] },
  { name: "at with an offset and without fraction is valid", lines: [j(rec({ at: "2026-07-28T23:14:03+02:00" }))], e: [["record", "accept"]] },
  { name: "files entry not a string", lines: [j(rec({ files: ["a", 3] }))], e: [["invalid", "reject", ["/files/1"]]] },
  { name: "userMessages entry without firstLine", lines: [j(rec({ userMessages: [{ turn: 1 }] }))], e: [["invalid", "reject", ["/userMessages/0/firstLine"]]] },
  { name: "usage without fraction", lines: [j(rec({ usage: { tokens: 1, contextWindow: 2 } }))], e: [["invalid", "reject", ["/usage/fraction"]]] },
  { name: "span sha256 must be 64 lowercase hex", lines: [j(rec({ spans: [span({ sha256: sha("a\nb").toUpperCase() })] })), j(rec({ spans: [span({ sha256: "abc" })] }))], e: [["invalid", "reject", ["/spans/0/sha256"]], ["invalid", "reject", ["/spans/0/sha256"]]] },
  { name: "span without sha256 (restored from pre-v2) is valid", lines: [j(rec({ spans: [omit(span(), "sha256")] }))], e: [["record", "accept"]] },
  { name: "span log bytes negative / lines missing", lines: [j(rec({ spans: [span({ log: { bytes: -1, lines: 0 } })] })), j(rec({ spans: [span({ log: { bytes: 1 } })] }))], e: [["invalid", "reject", ["/spans/0/log/bytes"]], ["invalid", "reject", ["/spans/0/log/lines"]]] },
  { name: "span missing code and turn", lines: [j(rec({ spans: [omit(omit(span(), "code"), "turn")] }))], e: [["invalid", "reject", ["/spans/0/code", "/spans/0/turn"]]] },
  { name: "span blockId that is not an anchor", lines: [j(rec({ spans: [span({ blockId: "call_abc123" })] })), j(rec({ spans: [span({ blockId: "a:resp_1:p01" })] })), j(rec({ spans: [span({ blockId: "a:resp_1" })] })), j(rec({ spans: [span({ blockId: "r:" })] }))], e: [["invalid", "reject", ["/spans/0/blockId"]], ["invalid", "reject", ["/spans/0/blockId"]], ["invalid", "reject", ["/spans/0/blockId"]], ["invalid", "reject", ["/spans/0/blockId"]]] },
  { name: "span blockIds with :, |, _, - and edit suffixes", lines: [j(rec({ spans: [span({ blockId: "r:toolu_01|fc_9:x-y" }), span({ blockId: "a:resp:p9_|-:p12", code: "abcdefghij" }), span({ blockId: "r:call:edit:deadbeef", code: "bcdefghijk" }), span({ blockId: "a:r-1:p0:edit:0193f0c2-7a1e-7000-8000-000000000001", code: "cdefghijkl" })] }))], e: [["record", "accept"]] },
  { name: "an edit span must omit fullOutputPath", lines: [j(rec({ spans: [span({ blockId: "r:call_1:edit:deadbeef", fullOutputPath: "/tmp/x.txt" })] }))], e: [["invalid", "reject", ["/spans/0/fullOutputPath"]]] },
  { name: "an :edit: suffix that is not an entry id is part of the id (so fullOutputPath is allowed)", lines: [j(rec({ spans: [span({ blockId: "r:call_1:edit:NOTHEX", fullOutputPath: "/tmp/x.txt" })] }))], e: [["record", "accept"]] },
  { name: "retract missing at / negative seq", lines: [j(omit(retract(1), "at")), j(retract(-2))], e: [["invalid", "reject", ["/at"]], ["invalid", "reject", ["/seq"]]] },
  { name: "v1 record is readable (spool log, no sha256)", lines: [j({ ...rec(), v: 1, spans: [{ blockId: "r:call_1", code: "k3f9a2", tool: "bash", turn: 2, log: { path: "/x/spool/s/spool.jsonl", byteStart: 100, byteEnd: 612 } }] })], e: [["record", null]], upgraded: [{ line: 1, spans: [{ blockId: "r:call_1", code: "k3f9a2", tool: "bash", turn: 2, log: { bytes: 512, lines: 0 } }] }] },
  { name: "v1 record with a bad spool address is invalid", lines: [j({ ...rec(), v: 1, spans: [{ blockId: "r:call_1", code: "k3f9a2", turn: 2, log: { path: "/x", byteStart: -1, byteEnd: 5 } }] })], e: [["invalid", null, ["/spans/0/log/byteStart"]]] },
  { name: "multi-byte UTF-8 moves byte offsets", lines: [j(rec({ userMessages: [{ turn: 1, firstLine: "héllo ✓ 🚀" }] })), j(rec({ seq: 1 }))], e: [["record", "accept"], ["record", "accept"]] },
  {
    name: "union: latest per seq wins; retraction voids earlier records of its seq; a later record reuses the seq",
    lines: [j(rec({ seq: 0 })), j(rec({ seq: 1 })), j(rec({ seq: 1, trigger: "cap" })), j(retract(1)), j(rec({ seq: 2 })), j(rec({ seq: 1, trigger: "compact" })), j(retract(2)), j(rec({ seq: 4 }))],
    e: [["record", "accept"], ["record", "accept"], ["record", "accept"], ["retract", "accept"], ["record", "accept"], ["record", "accept"], ["retract", "accept"], ["record", "accept"]],
    current: [1, 6, 8], archival: [1, 6, 8], nextSeq: 5,
  },
  {
    name: "union: superseded records stay in the archival union, in file order",
    lines: [j(rec({ seq: 3 })), j(rec({ seq: 0 })), j(rec({ seq: 3, trigger: "compact" })), "garbage", j(retract(7))],
    e: [["record", "accept"], ["record", "accept"], ["record", "accept"], ["invalid", null], ["retract", "accept"]],
    current: [2, 3], archival: [1, 2, 3], nextSeq: 8,
  },
  { name: "union: empty file", lines: [], e: [], current: [], archival: [], nextSeq: 0 },
];

const recordCases = cases.map((c) => {
  const finalNewline = c.finalNewline ?? true;
  const text = c.lines.join("\n") + (c.lines.length > 0 && finalNewline ? "\n" : "");
  let offset = 0;
  const expected = c.lines.map((line, i) => {
    const [outcome, schema, errorPaths] = c.e[i];
    const entry = { line: i + 1, byteOffset: offset, outcome, schema };
    if (errorPaths !== undefined) entry.errorPaths = errorPaths;
    offset += Buffer.byteLength(line, "utf8") + 1;
    return entry;
  });
  if (expected.length !== c.e.length) throw new Error(`case ${c.name}: ${c.e.length} expectations for ${c.lines.length} lines`);
  const result = { name: c.name, file: text, expected };
  for (const key of ["current", "archival", "nextSeq", "preserved", "upgraded"]) if (c[key] !== undefined) result[key] = c[key];
  return result;
});

out("records.json", {
  description:
    "Seed-index files and the outcome a conforming reader gives each line. `file` is the exact file content. `expected[].schema` is what schema.json says about the parsed line (accept / reject), or null when the line is not a v2 record the schema covers (blank, unparsable, skipped, v1). `errorPaths` must all appear among the reported JSON paths. `current` / `archival` list the line numbers of the records in the current view (seq ascending) and the archival union (file order). `preserved`: JSON pointers into the record read from that line that must keep their value. `upgraded`: the spans a v1 record reads as.",
  cases: recordCases,
});

const EDIT8 = "deadbeef";
const UUID = "0193f0c2-7a1e-7000-8000-000000000001";
out("anchors.json", {
  description: "Anchor grammar: `valid` texts and the anchor they parse to (formatAnchor(anchor) gives the text back); `invalid` texts a reader rejects.",
  valid: [
    { text: "r:call_abc123", anchor: { kind: "result", toolCallId: "call_abc123" } },
    { text: "r:toolu_01|fc_9", anchor: { kind: "result", toolCallId: "toolu_01|fc_9" } },
    { text: "r:a:b:c", anchor: { kind: "result", toolCallId: "a:b:c" } },
    { text: "r:x-y_z", anchor: { kind: "result", toolCallId: "x-y_z" } },
    { text: "r:p:p1", anchor: { kind: "result", toolCallId: "p:p1" } },
    { text: `r:call_1:edit:${EDIT8}`, anchor: { kind: "result", toolCallId: "call_1", editId: EDIT8 } },
    { text: `r:call:edit:x:edit:${EDIT8}`, anchor: { kind: "result", toolCallId: "call:edit:x", editId: EDIT8 } },
    { text: "r:call:edit:NOTHEX", anchor: { kind: "result", toolCallId: "call:edit:NOTHEX" } },
    { text: `r:call:edit:${UUID.toUpperCase()}`, anchor: { kind: "result", toolCallId: `call:edit:${UUID.toUpperCase()}` } },
    { text: "a:resp_1:p0", anchor: { kind: "part", responseId: "resp_1", part: 0 } },
    { text: "a:resp:p5:p3", anchor: { kind: "part", responseId: "resp:p5", part: 3 } },
    { text: "a:a|b-c_d:p12", anchor: { kind: "part", responseId: "a|b-c_d", part: 12 } },
    { text: `a:resp:p2:edit:${UUID}`, anchor: { kind: "part", responseId: "resp", part: 2, editId: UUID } },
    { text: "a::::p1", anchor: { kind: "part", responseId: "::", part: 1 } },
  ],
  invalid: [
    { text: "", reason: "no r: or a: prefix" },
    { text: "call_abc123", reason: "no r: or a: prefix" },
    { text: "R:call", reason: "prefix is case-sensitive" },
    { text: "r:", reason: "empty toolCallId" },
    { text: `r::edit:${EDIT8}`, reason: "empty toolCallId before the edit suffix" },
    { text: "a:resp", reason: "no :p<n>" },
    { text: "a:resp:p", reason: "empty part index" },
    { text: "a:resp:p01", reason: "leading zero" },
    { text: "a:resp:p-1", reason: "negative part index" },
    { text: "a:resp:p1x", reason: "part index not decimal" },
    { text: "a::p0", reason: "empty responseId" },
    { text: `a:resp:edit:${EDIT8}`, reason: "edit suffix but no :p<n>" },
  ],
});

const blockCases = [
  { rule: "toolResult", content: [{ type: "text", text: "line 1\nline 2" }, { type: "image", data: "AAAA", mimeType: "image/png" }, { type: "text", text: "tail" }], text: "line 1\nline 2\ntail" },
  { rule: "toolResult", content: [{ type: "image", data: "AAAA", mimeType: "image/png" }], text: "" },
  { rule: "toolResult", content: [], text: "" },
  { rule: "toolResult", content: [{ type: "text", text: "" }, { type: "text", text: "" }], text: "\n" },
  { rule: "toolResult", content: [{ type: "text", text: "ends with newline\n" }], text: "ends with newline\n" },
  { rule: "assistant text part", content: { type: "text", text: "héllo ✓ 🚀" }, text: "héllo ✓ 🚀" },
  { rule: "assistant thinking part", content: { type: "thinking", thinking: "let me think\n\nabout it" }, text: "let me think\n\nabout it" },
  { rule: "edit replacement (string)", content: "[replaced: 4 KB of build output]", text: "[replaced: 4 KB of build output]" },
  { rule: "edit replacement (parts)", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }], text: "a\nb" },
  { rule: "CRLF counts as one newline plus a \\r byte", content: "a\r\nb", text: "a\r\nb" },
];
out("block-text.json", {
  description: "Block text rule: `content` under `rule` gives `text`; `bytes` = UTF-8 length; `lines` = 0 for empty text, else count of \"\\n\" + 1; `sha256` = hex sha256 of the UTF-8 text.",
  cases: blockCases.map((c) => ({ ...c, bytes: Buffer.byteLength(c.text, "utf8"), lines: c.text.length === 0 ? 0 : c.text.split("\n").length, sha256: sha(c.text) })),
});

// Independent base32: read the digest as one big integer, 5 bits at a time from the top.
function base32(bytes) {
  const alphabet = "abcdefghijklmnopqrstuvwxyz234567";
  let n = 0n;
  for (const byte of bytes) n = (n << 8n) | BigInt(byte);
  const bits = bytes.length * 8;
  const pad = (5 - (bits % 5)) % 5;
  n <<= BigInt(pad);
  let s = "";
  for (let i = (bits + pad) / 5 - 1; i >= 0; i -= 1) s += alphabet[Number((n >> BigInt(i * 5)) & 31n)];
  return s;
}
const ids = ["r:call_abc123", "a:resp_1:p0", "r:toolu_01|fc_9", `r:call_1:edit:${EDIT8}`, "a:resp:p5:p3", "r:", "r:é✓"];
out("codes.json", {
  description: "Fold codes: base32 (RFC 4648 alphabet, lowercase, no padding) of sha256(blockId); code10 = first 10 characters, code12 = first 12 (taken on a collision within a session).",
  cases: ids.map((blockId) => {
    const b32 = base32(createHash("sha256").update(blockId, "utf8").digest());
    return { blockId, code10: b32.slice(0, 10), code12: b32.slice(0, 12), base32: b32 };
  }),
});

out("paths.json", {
  description: "Seed-index and handoff paths (POSIX): `<dir of session file>/context-fold/<session id>/seed-index.jsonl` and `.../handoff-<session id>.md`. Session ids that would escape the folder are refused.",
  cases: [
    { sessionFile: "/home/u/.pi/agent/sessions/--work--/2026-07-28T21-14-03-000Z_0193f0c2.jsonl", sessionId: "0193f0c2-7a1e-7000-8000-000000000001", seedIndex: "/home/u/.pi/agent/sessions/--work--/context-fold/0193f0c2-7a1e-7000-8000-000000000001/seed-index.jsonl", handoff: "/home/u/.pi/agent/sessions/--work--/context-fold/0193f0c2-7a1e-7000-8000-000000000001/handoff-0193f0c2-7a1e-7000-8000-000000000001.md" },
    { sessionFile: "s.jsonl", sessionId: "abc", seedIndex: "context-fold/abc/seed-index.jsonl", handoff: "context-fold/abc/handoff-abc.md" },
  ],
  refused: ["", ".", "..", "a/b", "a\\b", "../x", "a\u0000b"],
});
console.log("conformance vectors written");
