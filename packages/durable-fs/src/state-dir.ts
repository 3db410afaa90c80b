// Where context-fold keeps state that belongs to the user rather than to one session (the local memory
// bank, the gardener's run ledgers, the history indexes): one rule for every package that needs it.
import { homedir } from "node:os";
import { isAbsolute, join } from "node:path";

/**
 * `$XDG_STATE_HOME/context-fold/<part>`, else `~/.local/state/context-fold/<part>`. As the XDG spec says,
 * only an absolute `XDG_STATE_HOME` counts; an empty or relative one is ignored.
 */
export function stateDir(part: string, env: Readonly<Record<string, string | undefined>> = process.env, home: string = homedir()): string {
  const state = env["XDG_STATE_HOME"]?.trim();
  const base = state !== undefined && state !== "" && isAbsolute(state) ? state : join(home, ".local", "state");
  return join(base, "context-fold", part);
}
