// An oracle for tests over real sessions that owes nothing to workspace code: the files an edit or
// write targeted and the bash commands run, read straight from the session's JSON lines along the
// active path (the last entry's parent chain), so a test compares what our readers extract with it.

/** Edit/write targets (relative to the session's cwd where they were under it) and bash commands. */
export interface RawSessionTruth {
  readonly files: Set<string>;
  readonly commands: Set<string>;
}

/** The truth of `text`, a Pi session file's contents. Unparseable (torn) lines are skipped: they are the ledger reader's concern. */
export function rawSessionTruth(text: string): RawSessionTruth {
  const objects: Record<string, unknown>[] = [];
  for (const line of text.split("\n")) {
    if (line.trim().length === 0) continue;
    try {
      objects.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a torn line
    }
  }
  const cwd = typeof objects[0]?.["cwd"] === "string" ? objects[0]["cwd"] : "";
  const entries = objects.slice(1);
  let path = entries;
  if (entries.every((e) => typeof e["id"] === "string")) {
    const byId = new Map(entries.map((e) => [e["id"] as string, e]));
    path = [];
    for (let e = entries[entries.length - 1]; e !== undefined; e = byId.get(e["parentId"] as string)) path.unshift(e);
  }
  const truth = { files: new Set<string>(), commands: new Set<string>() };
  for (const entry of path) {
    const message = entry["message"] as { role?: string; content?: unknown } | undefined;
    if (message?.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const part of message.content as { type?: string; name?: string; arguments?: Record<string, unknown> }[]) {
      if (part.type !== "toolCall") continue;
      const args = part.arguments ?? {};
      if ((part.name === "edit" || part.name === "write") && typeof args["path"] === "string") {
        const p = args["path"];
        truth.files.add(p.startsWith(`${cwd}/`) ? p.slice(cwd.length + 1) : p.startsWith("./") ? p.slice(2) : p);
      }
      if (part.name === "bash" && typeof args["command"] === "string") truth.commands.add(args["command"]);
    }
  }
  return truth;
}
