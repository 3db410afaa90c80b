// A suite's helper process (a bank server, a client under test): its own process, so its peak RSS and
// CPU are its own. The child reports one JSON line on stdout; the caller reads it and stops the child.
import { spawn } from "node:child_process";

export interface ChildRun {
  /** The first line the child wrote to stdout. */
  readonly first: string;
  /** Waits for the child to exit (after SIGTERM when it was started with keepAlive). */
  stop(): Promise<void>;
}

/** Runs `script` (an ES module) in a fresh Node process with `env` added; resolves at its first stdout line. */
export function runChild(script: string, env: Record<string, string>, keepAlive: boolean): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      const nl = out.indexOf("\n");
      if (nl !== -1) {
        resolve({
          first: out.slice(0, nl),
          stop: async () => {
            if (keepAlive) child.kill("SIGTERM");
            await exited;
          },
        });
      }
    });
    child.once("exit", (code) => {
      if (!out.includes("\n")) reject(new Error(`bench child exited (${String(code)}) before reporting`));
    });
  });
}
