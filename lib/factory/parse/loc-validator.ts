import type { DropReason } from './types.js';

/** A loc that passed (`loc` as kept) or the reason it was dropped. */
export type LocResult = { loc: string; drop: null } | { loc: null; drop: DropReason };

// Fast path for the common case, taken only where the WHATWG parser is certain to accept the string.
// Only scheme, userinfo, host and port can make it fail (any path, query or fragment is percent-encoded),
// so the check stops after the host: either a dotted-quad IPv4 address in canonical form, or ASCII labels
// without `--` (so no punycode, which is validated) whose last one starts with a letter (never read as an
// IPv4 number); no userinfo; a port up to 65535. Labels are hyphen-separated runs, which keeps the pattern
// free of ambiguous backtracking.
const OCTET = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const PORT = '(?:\\d{1,4}|[0-5]\\d{4}|6[0-4]\\d{3}|65[0-4]\\d\\d|655[0-2]\\d|6553[0-5])';
const PLAIN_HTTP_URL = new RegExp(
  `^https?://(?:(?:${OCTET}\\.){3}${OCTET}|(?:[a-z0-9]+(?:-[a-z0-9]+)*\\.)*[a-z][a-z0-9]*(?:-[a-z0-9]+)*)` + `(?::${PORT})?(?:[/?#]|$)`,
  'i',
);
const SCHEME = /^([a-z][a-z0-9+.-]*):/i;
// Without a scheme, a string with blanks or markup in it is not a relative reference someone meant.
const RELATIVE_REFERENCE = /^[^\s<>"]+$/;

const TOO_LONG: LocResult = { loc: null, drop: 'tooLong' };
const RELATIVE: LocResult = { loc: null, drop: 'relative' };
const BAD_SCHEME: LocResult = { loc: null, drop: 'badScheme' };
const MALFORMED: LocResult = { loc: null, drop: 'malformed' };
const CONTROL: LocResult = { loc: null, drop: 'controlCharacters' };
// C0 controls and DEL: XML character references (`&#10;`) put them inside a loc, and a URL that carries one would
// split a line of output or reach a header. One rule everywhere: such a loc is dropped and counted, never encoded.
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f]/;

/** True when `text` is longer than `maxBytes` in UTF-8, counting bytes only when the length alone cannot tell. */
export function exceedsBytes(text: string, maxBytes: number): boolean {
  if (text.length * 3 <= maxBytes) return false;
  if (text.length > maxBytes) return true;
  return Buffer.byteLength(text, 'utf8') > maxBytes;
}

/** Checks a trimmed page loc: absolute http(s) with a host, at most `maxBytes`; kept exactly as written. */
export function checkAbsoluteLoc(raw: string, maxBytes: number): LocResult {
  if (raw.length === 0) return MALFORMED;
  if (exceedsBytes(raw, maxBytes)) return TOO_LONG;
  if (CONTROL_CHARACTER.test(raw)) return CONTROL;
  if (PLAIN_HTTP_URL.test(raw)) return { loc: raw, drop: null };
  const scheme = SCHEME.exec(raw)?.[1]?.toLowerCase();
  if (scheme === undefined) return RELATIVE_REFERENCE.test(raw) ? RELATIVE : MALFORMED;
  if (scheme !== 'http' && scheme !== 'https') return BAD_SCHEME;
  return parsesWithHost(raw) ? { loc: raw, drop: null } : MALFORMED;
}

/**
 * Like checkAbsoluteLoc, but a relative reference is resolved against `base` (the sitemap's own URL for
 * child sitemaps and feed links, the page's loc for hreflang hrefs); the resolved href is what is kept.
 */
export function resolveLoc(raw: string, base: string | null, maxBytes: number): LocResult {
  const direct = checkAbsoluteLoc(raw, maxBytes);
  if (direct.drop !== 'relative' || base === null) return direct;
  let resolved: URL;
  try {
    resolved = new URL(raw, base);
  } catch {
    return RELATIVE;
  }
  if (resolved.protocol !== 'http:' && resolved.protocol !== 'https:') return RELATIVE;
  return exceedsBytes(resolved.href, maxBytes) ? TOO_LONG : { loc: resolved.href, drop: null };
}

function parsesWithHost(raw: string): boolean {
  try {
    return new URL(raw).hostname.length > 0;
  } catch {
    return false;
  }
}
