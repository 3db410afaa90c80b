// How long a test feeding adversarial input (1 MB of one character, of brackets, of blanks) may run.
// Such a test proves a scanner or regex is linear by finishing: a linear pass over a megabyte takes
// milliseconds, a quadratic one takes minutes. Its own bound, not the suite's 60 s default, so a
// regression fails instead of passing slowly; it is ten seconds rather than one because these tests run
// beside several others on two shared cores, where a linear pass has been seen taking two seconds. This
// is a termination bound, not a speed target (those are measured by `pnpm bench`).
export const LINEAR_TIME_MS = 10_000;
