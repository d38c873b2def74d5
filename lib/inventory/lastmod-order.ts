/**
 * Which of two listings of one URL a sync keeps: the one with the newest lastmod (migration 12's `cf_lastmod_newer`,
 * the same rule for parts applied apart). A value that is not a W3C datetime counts as older than any that is; on a
 * tie the listing met first stays.
 */
export function isNewerLastmod(candidate: string | null, current: string | null): boolean {
  const instant = lastmodInstant(candidate);
  if (instant === null) return false;
  const held = lastmodInstant(current);
  return held === null || instant > held;
}

function lastmodInstant(value: string | null): number | null {
  if (value === null) return null;
  // A date alone (and a year, a year-month) is midnight UTC, as Date.parse reads it and as the SQL function does.
  const instant = Date.parse(value);
  return Number.isNaN(instant) ? null : instant;
}
