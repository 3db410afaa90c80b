// Which project a session belongs to, for the memory bank: the name of the git remote (`origin`, else
// the first remote) of the repository holding the cwd, else the folder's name. The project names the
// `project:<name>` tag that isolates recall, and the bank id when none is configured.
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";

/** A file in the project root (or the cwd) that switches memory off for that project. */
export const OPT_OUT_FILE = ".context-fold-no-memory";

export interface ProjectIdentity {
  /** The project's name (`project:<name>` tag). */
  readonly name: string;
  /** Where the name came from. */
  readonly source: "config" | "git-remote" | "folder";
  /** The repository root (or the cwd outside a repository). */
  readonly root: string;
  /** true when the project has the opt-out file. */
  readonly optedOut: boolean;
}

/** The git dir of the repository holding `dir` (following a worktree's `.git` file), with its root. */
function gitDirOf(dir: string): { root: string; gitDir: string } | undefined {
  for (let at = resolve(dir); ; at = dirname(at)) {
    const dotGit = join(at, ".git");
    try {
      const stat = statSync(dotGit);
      if (stat.isDirectory()) return { root: at, gitDir: dotGit };
      const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotGit, "utf8"))?.[1]?.trim();
      if (pointer !== undefined) return { root: at, gitDir: isAbsolute(pointer) ? pointer : resolve(at, pointer) };
    } catch {
      // no .git here
    }
    if (dirname(at) === at) return undefined;
  }
}

/** The remote URLs in a git config text, by remote name, in file order. */
export function gitRemotes(config: string): Map<string, string> {
  const remotes = new Map<string, string>();
  let current: string | undefined;
  for (const raw of config.split("\n")) {
    const line = raw.trim();
    if (line.startsWith("[")) {
      current = /^\[remote\s+"([^"\n]{1,200})"\]$/.exec(line)?.[1];
      continue;
    }
    const url = current === undefined ? undefined : /^url\s*=\s*(\S.{0,2000})$/.exec(line)?.[1]?.trim();
    if (current !== undefined && url !== undefined && !remotes.has(current)) remotes.set(current, url);
  }
  return remotes;
}

/** `git@host:org/repo.git`, `https://host/org/repo(.git)`, a path → `repo`. */
export function repoNameOf(url: string): string | undefined {
  const tail = url.replace(/[/\\]+$/, "").split(/[/\\:]/).pop() ?? "";
  const name = tail.endsWith(".git") ? tail.slice(0, -4) : tail;
  return sanitize(name);
}

/** Tag-safe: letters, digits, `.`, `_`, `-` (others become `-`), at most 100 characters. */
function sanitize(name: string): string | undefined {
  const clean = name.replace(/[^A-Za-z0-9._-]/g, "-").slice(0, 100);
  return clean === "" || /^[.-]+$/.test(clean) ? undefined : clean;
}

/** The project of a session started in `cwd` (`configured`: memory.tag, which wins). */
export function projectIdentity(cwd: string, configured: string | undefined): ProjectIdentity {
  const git = gitDirOf(cwd);
  const root = git?.root ?? resolve(cwd);
  const optedOut = existsSync(join(root, OPT_OUT_FILE)) || existsSync(join(resolve(cwd), OPT_OUT_FILE));
  if (configured !== undefined && configured.trim() !== "") return { name: configured.trim(), source: "config", root, optedOut };
  if (git !== undefined) {
    let config: string | undefined;
    for (const dir of [git.gitDir, commonDir(git.gitDir)]) {
      if (dir === undefined) continue;
      try {
        config = readFileSync(join(dir, "config"), "utf8");
        if (gitRemotes(config).size > 0) break;
      } catch {
        // a worktree keeps its config in the common dir
      }
    }
    const remotes = config === undefined ? new Map<string, string>() : gitRemotes(config);
    const url = remotes.get("origin") ?? [...remotes.values()][0];
    const name = url === undefined ? undefined : repoNameOf(url);
    if (name !== undefined) return { name, source: "git-remote", root, optedOut };
  }
  return { name: sanitize(basename(root)) ?? "unknown", source: "folder", root, optedOut };
}

function commonDir(gitDir: string): string | undefined {
  try {
    const text = readFileSync(join(gitDir, "commondir"), "utf8").trim();
    return isAbsolute(text) ? text : resolve(gitDir, text);
  } catch {
    return undefined;
  }
}

/** The bank of a project when none is configured (the seed's `<prefix>::<project>` form). */
export function projectBankId(project: string): string {
  return `cf::${project}`;
}
