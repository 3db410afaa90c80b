// A V8 CPU profile of part of a bench run, taken in process through the inspector (so only the
// stretch a suite chooses is profiled: counted turns, not warm-up or setup).
import { mkdirSync, writeFileSync } from "node:fs";
import { Session as InspectorSession } from "node:inspector/promises";
import { join } from "node:path";

/**
 * Start a CPU profile now, when `dir` is set; the returned function stops it and writes
 * `<dir>/<name>.cpuprofile`. `intervalMicros`: the sampling interval (V8's default when omitted).
 */
export async function startProfile(dir: string | undefined, name: string, intervalMicros?: number): Promise<() => Promise<void>> {
  if (dir === undefined || dir === "") return async () => undefined;
  const session = new InspectorSession();
  session.connect();
  await session.post("Profiler.enable");
  if (intervalMicros !== undefined) await session.post("Profiler.setSamplingInterval", { interval: intervalMicros });
  await session.post("Profiler.start");
  return async () => {
    const { profile } = await session.post("Profiler.stop");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, `${name}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  };
}
