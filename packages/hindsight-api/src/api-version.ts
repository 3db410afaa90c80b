// Which Hindsight API version has which feature: the one home of that rule, for the local bank (which
// answers as the version it is told to be) and for the gardener's client (which asks the server). It
// sits in a package of its own so that neither of those two depends on the other.

/** First server version with PATCH /memories/{id}. */
export const PATCH_MIN_VERSION = "0.8.2";

/** true when `version` is at least `min` (dotted numeric; pre-release suffixes ignored). */
export function versionAtLeast(version: string, min: string): boolean {
  const parse = (v: string): number[] => v.split(/[.+-]/).slice(0, 3).map((p) => Number.parseInt(p, 10) || 0);
  const a = parse(version);
  const b = parse(min);
  for (let i = 0; i < 3; i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d > 0;
  }
  return true;
}
