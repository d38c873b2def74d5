import { hashInto, hashUnits, unitsOf, type UnitScratch } from './hash-set.js';

/**
 * The within-sitemap dedupe key of a page URL that already passed loc validation: the WHATWG-normalised
 * href for what matters here (scheme and host lower-cased, the default port and an empty port dropped, an
 * empty path read as `/`, the fragment removed), computed on the string. `/a` and `/a/`, http and https,
 * path and query case stay distinct. The usual loc is already in that form and is its own key (no copy);
 * a host the fast scan does not understand (userinfo, IPv6, percent-encoded or non-ASCII) goes through `new URL`.
 * Not normalised on this path: percent-encoding and dot segments in the path (locs that differ there stay distinct).
 */
export function pageKey(loc: string): string {
  const schemeEnd = loc.indexOf('://');
  if (schemeEnd !== 4 && schemeEnd !== 5) return viaWhatwg(loc);
  let lower = hasUpper(loc, 0, schemeEnd);
  let portAt = -1;
  let authorityEnd = loc.length;
  for (let i = schemeEnd + 3; i < loc.length; i++) {
    const c = loc.charCodeAt(i);
    if (c === 0x2f || c === 0x3f || c === 0x23) {
      authorityEnd = i; // '/', '?' or '#'
      break;
    }
    if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d) continue;
    if (c >= 0x41 && c <= 0x5a) lower = true;
    else if (c === 0x3a && portAt === -1) portAt = i;
    else return viaWhatwg(loc);
  }
  const hash = loc.indexOf('#', authorityEnd);
  const end = hash === -1 ? loc.length : hash;
  const noPath = authorityEnd === end || loc.charCodeAt(authorityEnd) === 0x3f;
  // An explicit port already in its canonical spelling (the default dropped, no leading zero) changes nothing.
  const sameOrigin = portAt === -1 || isCanonicalPort(loc, portAt + 1, authorityEnd, schemeEnd === 5);
  if (!lower && sameOrigin && hash === -1 && !noPath) return loc;
  let origin = loc.slice(0, portAt === -1 ? authorityEnd : portAt).toLowerCase();
  if (portAt !== -1) origin += portSuffix(loc.slice(portAt + 1, authorityEnd), schemeEnd === 5);
  return origin + (noPath ? '/' : '') + loc.slice(authorityEnd, end);
}

/**
 * Writes `hashInto(pageKey(urls[i]))` at index `i` of `into`, for every URL, and with `keys` the page key itself at
 * `keys[i]`. A loc that is its own key (lower-case `http://` or `https://`, a plain host, an optional canonical port,
 * a path, no fragment: the usual loc) is checked and hashed on a UTF-16 copy of the batch (one join, one native
 * write), and no key is built; any other goes through pageKey.
 */
export function hashPageKeys(urls: readonly string[], into: Uint32Array, keys?: string[]): void {
  const units = unitsOf(urls.join(''), batchScratch);
  let from = 0;
  for (let i = 0; i < urls.length; i++) {
    const loc = urls[i] as string;
    if (isOwnKey(loc, units, from)) {
      hashUnits(units, from, loc.length, into, i);
      if (keys !== undefined) keys[i] = loc;
    } else {
      const key = pageKey(loc);
      hashInto(key, into, i);
      if (keys !== undefined) keys[i] = key;
    }
    from += loc.length;
  }
}

// The batch's units: apart from hashInto's own scratch, which pageKey's hash overwrites mid-batch.
const batchScratch: UnitScratch = { units: new Uint16Array(0) };

// True when pageKey(loc) === loc by the checks below (`loc` is at `units[from]`): pageKey's scan, on the copy.
function isOwnKey(loc: string, units: Uint16Array, from: number): boolean {
  const length = loc.length;
  const https = units[from + 4] === 0x73;
  const start = https ? 8 : 7; // first authority unit
  if (
    length <= start ||
    units[from] !== 0x68 ||
    units[from + 1] !== 0x74 ||
    units[from + 2] !== 0x74 ||
    units[from + 3] !== 0x70 ||
    units[from + start - 3] !== 0x3a ||
    units[from + start - 2] !== 0x2f ||
    units[from + start - 1] !== 0x2f ||
    loc.indexOf('#', start) !== -1
  ) {
    return false;
  }
  let portAt = -1;
  for (let i = start; i < length; i++) {
    const after = authorityStep(units[from + i] as number, i, portAt);
    if (after === REJECT) return false;
    if (after === END) return portAt === -1 || isCanonicalPort(loc, portAt + 1, i, https);
    portAt = after;
  }
  return false; // no path
}

const END = -2;
const REJECT = -3;

// One authority unit at `at` as pageKey's scan reads it: the port position so far (-1: none), END at the '/'
// that ends it, REJECT where pageKey would not give the loc back (upper case, '?', '#', a second ':', ...).
function authorityStep(c: number, at: number, portAt: number): number {
  if ((c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x2d) return portAt;
  if (c === 0x2f) return END;
  return c === 0x3a && portAt === -1 ? at : REJECT;
}

function hasUpper(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x41 && c <= 0x5a) return true;
  }
  return false;
}

// True when portSuffix would give `:` and these digits back: digits only, no leading zero, not the default port.
function isCanonicalPort(loc: string, from: number, to: number, https: boolean): boolean {
  const length = to - from;
  if (length === 0 || length > 5 || (loc.charCodeAt(from) === 0x30 && length > 1)) return false;
  let port = 0;
  for (let i = from; i < to; i++) {
    const c = loc.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return false;
    port = port * 10 + (c - 0x30);
  }
  return port !== (https ? 443 : 80);
}

// `:0443` is port 443; the scheme's default port and an empty one are no port at all.
function portSuffix(digits: string, https: boolean): string {
  if (digits === '') return '';
  const port = Number(digits);
  return port === (https ? 443 : 80) ? '' : `:${port}`;
}

function viaWhatwg(loc: string): string {
  try {
    const url = new URL(loc);
    url.hash = '';
    return url.href;
  } catch {
    return loc;
  }
}
