// Entry point of the `context-fold` binary. Node's module compile cache is turned on before any of our
// code loads (a start of the CLI is mostly loading code; cached, its compilation is skipped on later
// runs); the program is imported after that, so it is loaded through the cache.
import module from "node:module";

// Node ≥ 22.1 has it; an older Node runs without (the CLI then starts as before). NODE_DISABLE_COMPILE_CACHE=1
// turns it off, NODE_COMPILE_CACHE=<dir> moves it (Node's own variables).
if (typeof module.enableCompileCache === "function") module.enableCompileCache();

const argv = process.argv.slice(2);
if (argv.length === 1 && (argv[0] === "--version" || argv[0] === "-V")) {
  // A bare `--version` prints what commander would (the version and a newline) without loading it.
  const { version } = await import("./version.js");
  process.stdout.write(`${version}\n`);
} else {
  const { endQuietlyOnBrokenPipe, reportError } = await import("./error-boundary.js");
  endQuietlyOnBrokenPipe();
  // A plain `recall <session file> …` runs without commander (commands/recall-argv.ts says which);
  // everything else, help and mistakes included, goes through the program.
  const fast = argv[0] === "recall" ? (await import("./commands/recall-argv.js")).parseRecallArgv(argv.slice(1)) : null;
  if (fast === null) {
    const { run } = await import("./program.js");
    await run(argv);
  } else {
    const [{ recall }, { wantsJson }] = await Promise.all([import("./commands/recall.js"), import("./output.js")]);
    try {
      await recall(fast.session, fast.words, fast.options);
    } catch (error) {
      // As program.ts's run tells an error thrown by a command's action.
      reportError(error, wantsJson(argv));
    }
  }
}
