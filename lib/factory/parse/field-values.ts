import type { Changefreq } from '../../core/types.js';

/** Trimmed text, or null when nothing is left. */
export function textOrNull(text: string): string | null {
  const trimmed = text.trim();
  return trimmed.length === 0 ? null : trimmed;
}

/** A valid `<changefreq>` value, lower-cased; anything else is null. */
export function parseChangefreq(text: string): Changefreq | null {
  return changefreqSpelled(text) ?? changefreqSpelled(text.trim().toLowerCase());
}

// Compared, not looked up: each value is a fresh string, which a Set would hash first; the shared literal is kept.
function changefreqSpelled(text: string): Changefreq | null {
  switch (text) {
    case 'daily':
      return 'daily';
    case 'weekly':
      return 'weekly';
    case 'monthly':
      return 'monthly';
    case 'always':
      return 'always';
    case 'hourly':
      return 'hourly';
    case 'yearly':
      return 'yearly';
    case 'never':
      return 'never';
    default:
      return null;
  }
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
  // `d.d`, nearly every priority, read without hashing the fresh string: b / 10 is the double nearest the
  // decimal, exactly what Number() reads.
  if (text.length === 3 && text.charCodeAt(1) === 0x2e) {
    const a = text.charCodeAt(0) - 0x30;
    const b = text.charCodeAt(2) - 0x30;
    if (b >= 0 && b <= 9 && (a === 0 || (a === 1 && b === 0))) return a + b / 10;
  }
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
  return text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part.length > 0);
}

/** RSS `<pubDate>` (RFC 822) or a feed date as ISO 8601 so it reads like a sitemap lastmod; null when unparseable. */
export function feedDate(text: string): string | null {
  const time = Date.parse(text);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

// W3C Datetime (https://www.w3.org/TR/NOTE-datetime), the format sitemaps.org names for <lastmod>: YYYY, YYYY-MM,
// YYYY-MM-DD, or a date with hh:mm[:ss[.s+]] and a TZD (Z or +hh:mm / -hh:mm). The year-only and month forms are
// accepted because the W3C profile allows them; "T", "Z" and the colon in the TZD are required, as the profile says.
const W3C_DATETIME =
  /^\d{4}(?:-(?:0[1-9]|1[0-2])(?:-(?:0[1-9]|[12]\d|3[01])(?:T(?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d))?)?)?$/;

/** A trimmed `<lastmod>` value kept as written when it is a W3C datetime of a real calendar day, else null. */
export function w3cDatetime(text: string): string | null {
  if (!W3C_DATETIME.test(text)) return null;
  // The pattern allows days up to 31: days 29-31 are checked against their month (2023-02-29 is no date).
  if (text.length < 10 || text.charCodeAt(8) < 0x32 || (text.charCodeAt(8) === 0x32 && text.charCodeAt(9) < 0x39)) return text;
  const year = Number(text.slice(0, 4));
  const month = Number(text.slice(5, 7));
  const day = Number(text.slice(8, 10));
  return day <= daysInMonth(year, month) ? text : null;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}
