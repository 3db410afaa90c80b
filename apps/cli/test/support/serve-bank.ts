// `context-fold hindsight serve` as users run it: the built CLI spawned under this Node, the URL read
// from the JSON document it prints on stdout once it listens.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { resolve } from "node:path";

const mainJs = resolve(import.meta.dirname, "../../dist/main.js");

export interface Served {
  readonly child: ChildProcessWithoutNullStreams;
  /** The address it printed; rejects when the process exits first. */
  readonly ready: Promise<{ url: string; port: number }>;
  readonly exited: Promise<number | null>;
  readonly stderr: () => string;
}

/** Starts `hindsight serve --port 0 --json …args` with exactly `env` (default: this process's). */
export function startServe(args: readonly string[], env: NodeJS.ProcessEnv = process.env): Served {
  const child = spawn(process.execPath, [mainJs, "hindsight", "serve", "--port", "0", "--json", ...args], { stdio: ["pipe", "pipe", "pipe"], env });
  let out = "";
  let err = "";
  child.stderr.on("data", (chunk: Buffer) => (err += chunk.toString()));
  const ready = new Promise<{ url: string; port: number }>((resolveReady, reject) => {
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      try {
        resolveReady(JSON.parse(out) as { url: string; port: number });
      } catch {
        // The JSON document is not complete yet.
      }
    });
    child.once("exit", (code) => reject(new Error(`serve exited early (${String(code)}): ${err}`)));
  });
  const exited = new Promise<number | null>((resolveExit) => child.once("exit", (code) => resolveExit(code)));
  return { child, ready, exited, stderr: () => err };
}
