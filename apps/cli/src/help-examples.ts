// The EXAMPLES section of each command's --help, in one table so every command shows how it is typed,
// and required options said so in their description (commander's help does not mark them).
import type { Command } from "commander";

/** Examples by command path (`records show`); a command without a row gets no section. */
const EXAMPLES: Readonly<Record<string, readonly string[]>> = {
  inspect: ["context-fold inspect ~/.pi/agent/sessions/--home-me-app--/2026-07-28T21-14-03_abc.jsonl", "context-fold inspect latest --json"],
  resolve: ["context-fold resolve s.jsonl r:toolu_01ABC", "context-fold resolve s.jsonl a:resp_9:p2 --sha256 <64 hex digits>"],
  "records validate": ["context-fold records validate seed-index.jsonl"],
  "records show": ["context-fold records show seed-index.jsonl --archival --json"],
  "hindsight serve": ["context-fold hindsight serve --port 8888 --data ./bank"],
  garden: [
    "context-fold garden --url http://127.0.0.1:8888 --bank work",
    "context-fold garden --url http://127.0.0.1:8888 --bank work --probe 'deploy' --apply --max-apply 5",
  ],
  index: ["context-fold index s.jsonl", "context-fold index latest --trigger threshold --now 2026-07-28T21:14:03Z"],
  verify: ["context-fold verify seed-index.jsonl --session s.jsonl"],
  recall: [
    "context-fold recall s.jsonl refreshToken",
    "context-fold recall latest '\"cannot find module\"' --page 2",
    "context-fold recall s.jsonl --expand 12,13",
    "context-fold recall --sessions refreshToken",
    "context-fold recall --sessions ~/.pi/agent/sessions refreshToken",
  ],
  facts: ["context-fold facts s.jsonl --json"],
  artifacts: ["context-fold artifacts s.jsonl"],
  compact: ["context-fold compact s.jsonl --budget 4000", "context-fold compact s.jsonl --format pi --previous summary.md"],
  handoff: ["context-fold handoff s.jsonl --goal 'finish the cache migration'"],
  inventory: ["context-fold inventory s.jsonl --top 10"],
  eval: ["context-fold eval s.jsonl --rounds 3", "context-fold eval s.jsonl --rounds 4 --html report.html", "context-fold eval ../fixtures/*.jsonl --truth truth/ --json"],
  cache: ["context-fold cache", "context-fold cache latest", "context-fold cache clean --older-than 30d --dry-run"],
  "cache clean": ["context-fold cache clean --dry-run", "context-fold cache clean --older-than 7d"],
};

function pathOf(command: Command): string {
  const names: string[] = [];
  for (let c: Command | null = command; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(" ");
}

/** Adds the EXAMPLES section and the "(required)" marks to every command under `program`. */
export function decorateHelp(program: Command): void {
  const visit = (command: Command): void => {
    for (const option of command.options) {
      if (option.mandatory && option.description !== undefined && !option.description.endsWith("(required)")) option.description = `${option.description} (required)`;
    }
    const examples = EXAMPLES[pathOf(command)];
    if (examples !== undefined) command.addHelpText("after", `\nExamples:\n${examples.map((e) => `  $ ${e}`).join("\n")}\n`);
    for (const sub of command.commands) visit(sub);
  };
  for (const sub of program.commands) visit(sub);
}
