// Runs the CLI in-process with stdout/stderr captured and the exit code read back, as a shell would see it.
import { vi } from "vitest";
import { type ProgramOptions, run } from "../../src/program.js";

/** `options.commands`: run with these command modules instead of the real ones (error-boundary tests). */
export async function cli(args: string[], options: ProgramOptions = {}): Promise<{ stdout: string; stderr: string; exit: number }> {
  let stdout = "";
  let stderr = "";
  const out = vi.spyOn(process.stdout, "write").mockImplementation((chunk: string | Uint8Array) => {
    stdout += String(chunk);
    return true;
  });
  const err = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  process.exitCode = 0;
  try {
    await run(args, options);
  } finally {
    out.mockRestore();
    err.mockRestore();
  }
  const exit = Number(process.exitCode ?? 0);
  process.exitCode = 0;
  return { stdout, stderr, exit };
}
