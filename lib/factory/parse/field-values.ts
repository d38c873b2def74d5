import type { Changefreq } from '../types.js';

const CHANGEFREQS: ReadonlySet<string> = new Set(['always', 'hourly', 'daily', 'weekly', 'monthly', 'yearly', 'never']);

/** Trimmed text, or null when nothing is left. */
export function textOrNull(text: string): string | null {
  const trimmed = text.trim();
  return trimmed.length === 0 ? null : trimmed;
}

/** A valid `<changefreq>` value, lower-cased; anything else is null. */
export function parseChangefreq(text: string): Changefreq | null {
  if (CHANGEFREQS.has(text)) return text as Changefreq; // the usual exact spelling, without copying
  const value = text.trim().toLowerCase();
  return CHANGEFREQS.has(value) ? (value as Changefreq) : null;
}

/** A number within [min, max] (JavaScript number syntax; NaN fails the range test), else null. */
export function parseDecimal(text: string, min: number, max: number): number | null {
  const trimmed = text.trim();
  if (trimmed.length === 0) return null; // Number('') is 0
  const value = Number(trimmed);
  return value >= min && value <= max ? value : null;
}

// Priorities repeat a handful of spellings ("0.8", "1.0"), so parsed values are memoised, up to a bound.
const priorities = new Map<string, number | null>();
const MAX_MEMO_PRIORITIES = 256;

/** `<priority>`: a number from 0 to 1, else null. */
export function parsePriority(text: string): number | null {
  const known = priorities.get(text);
  if (known !== undefined) return known;
  const value = parseDecimal(text, 0, 1);
  if (priorities.size < MAX_MEMO_PRIORITIES) priorities.set(text, value);
  return value;
}

/** Google's yes/no flags (also true/false); anything else is null. */
export function parseYesNo(text: string): boolean | null {
  const value = text.trim().toLowerCase();
  if (value === 'yes' || value === 'true') return true;
  if (value === 'no' || value === 'false') return false;
  return null;
}

/** Comma-separated keywords, trimmed, empties dropped. */
export function splitKeywords(text: string): string[] {
  return text.split(',').map((part) => part.trim()).filter((part) => part.length > 0);
}

/** RSS `<pubDate>` (RFC 822) as ISO 8601 so it reads like a sitemap lastmod; kept as written when unparseable. */
export function feedDate(text: string): string | null {
  const trimmed = textOrNull(text);
  if (trimmed === null) return null;
  const time = Date.parse(trimmed);
  return Number.isNaN(time) ? trimmed : new Date(time).toISOString();
}
