// The README's first command: every job on the built-in example session. (Grows as the jobs land.)
console.log("context-fold demo");
