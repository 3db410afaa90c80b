// Reading a request body: declared as JSON, and never buffered past the limit (413 as soon as it passes).
import type { IncomingMessage } from "node:http";
import { HttpAnswer } from "./http-answer.js";

function tooLarge(limit: number): HttpAnswer {
  return new HttpAnswer(413, `Request body too large: the limit is ${String(limit)} bytes`);
}

/** Reads the body, refusing (413, nothing more buffered) as soon as it passes `limit`. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on("data", (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > limit) {
        refused = true;
        chunks.length = 0;
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!refused) resolve(Buffer.concat(chunks).toString("utf8"));
    });
    req.on("error", reject);
  });
}

/** application/json, with parameters (charset) allowed. */
export function isJsonContentType(value: string | undefined): boolean {
  if (value === undefined) return false;
  const type = value.split(";")[0]?.trim().toLowerCase();
  return type === "application/json";
}
