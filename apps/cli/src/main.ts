// Entry point of the `context-fold` binary (a start of the CLI is mostly loading code). Node's module
// compile cache is turned on before any of our code loads (cached, its compilation is skipped on later
// runs), but for a bare `--version`, which loads nothing else; the program is imported after that, so it
// is loaded through the cache. Node's built-in modules are taken with process.getBuiltinModule, not
// imported: importing one as an ES module builds a facade of its exports, and node:fs's reads its lazily
// loaded stream classes, several ms of a start.
// NODE_DISABLE_COMPILE_CACHE=1 turns the cache off, NODE_COMPILE_CACHE=<dir> moves it (Node's own variables).

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  // A bare `--version` prints what commander would (the version and a newline) from this module alone:
  // the version is written into the build (version.ts), so no other module, no package.json and no
  // compile cache (loading node:module and node:os, a directory made and read) are needed. It goes to the
  // descriptor itself (as stdout-direct.ts writes; process.stdout never made): a write this short to a
  // pipe is whole or nothing, EAGAIN (a full non-blocking pipe) leaves it to process.stdout, which waits,
  // and a reader that went away (EPIPE) has nothing left to be told.
  const text = `${typeof CONTEXT_FOLD_VERSION === "string" ? CONTEXT_FOLD_VERSION : (await import("./version.js")).version}\n`;
  try {
    process.getBuiltinModule("node:fs").writeSync(1, text);
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "EAGAIN") process.stdout.write(text);
    else if (code !== "EPIPE") throw error;
  }
} else {
  // With NODE_COMPILE_CACHE set, Node turned the cache on itself before this module loaded: node:module
  // (and node:os, for the default folder) need not be loaded to turn it on again, some 3 ms of a start.
  if (!process.env.NODE_COMPILE_CACHE) process.getBuiltinModule("node:module").enableCompileCache();
  // A plain `recall <session file> …` is first tried by the one-shot search (one bundle of its own: its
  // path is resolved at run time, not bundled into this entry; see tsup.config.ts).
  // `recall --sessions <folder> …` likewise (a bundle of its own: the history search and what it reads).
  const sessions = argv[0] === "recall" && argv.some((a) => a === "--sessions" || a.startsWith("--sessions=")) && (await (await import("./recall-sessions-one-shot.js")).recallSessionsOneShot(argv));
  const oneShot = sessions ? "answered" : argv[0] === "recall" ? (await import("./recall-one-shot.js")).recallOneShot(argv) : "commander";
  if (oneShot !== "answered") {
    const { endQuietlyOnBrokenPipe, reportError } = await import("./error-boundary.js");
    endQuietlyOnBrokenPipe();
    // What the one-shot search parsed but the table could not answer runs without commander
    // (commands/recall-argv.ts says which), the table not tried again; everything else, help and
    // mistakes included, goes through the program.
    const fast = oneShot === "ledger" ? (await import("./commands/recall-argv.js")).parseRecallArgv(argv.slice(1)) : null;
    if (fast === null) {
      const { run } = await import("./program.js");
      await run(argv);
    } else {
      const [{ recall }, { wantsJson }] = await Promise.all([import("./commands/recall.js"), import("./output.js")]);
      try {
        await recall(fast.session, fast.words, fast.options, { table: false });
      } catch (error) {
        // As program.ts's run tells an error thrown by a command's action.
        reportError(error, wantsJson(argv));
      }
    }
  }
}
