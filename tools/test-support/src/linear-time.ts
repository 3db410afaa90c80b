// How long a test feeding adversarial input (1 MB of one character, of brackets, of blanks) may run.
// Such a test proves a scanner or regex is linear by finishing: a linear pass over a megabyte takes
// milliseconds, a quadratic one takes minutes. Its own bound, not the suite's 60 s default, so a
// regression fails instead of passing slowly (a quadratic pass over a megabyte is 10^12 steps: hours). It
// is thirty seconds rather than one because these tests run beside several others on two shared cores,
// where the heaviest (three megabytes of malformed lines salvaged) has been seen taking eleven seconds
// under a load of twenty. This is a termination bound, not a speed target (those are `pnpm bench` rows).
export const LINEAR_TIME_MS = 30_000;
