// The wire side of the bank: which Host headers it answers to, and how a JSON answer is written.
import type { ServerResponse } from "node:http";

/** `host:port` forms a loopback client sends; a DNS-rebinding page sends its own name instead. */
export function allowedHosts(host: string, port: number): Set<string> {
  const p = String(port);
  const names = new Set([`127.0.0.1:${p}`, `localhost:${p}`, `[::1]:${p}`]);
  names.add(host.includes(":") ? `[${host}]:${p}` : `${host}:${p}`);
  return names;
}

export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", "content-length": String(Buffer.byteLength(text)), ...headers });
  res.end(text);
}
