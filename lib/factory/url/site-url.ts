import { isIP } from 'node:net';
import { FactoryError } from '../../core/errors.js';
import type { NetPolicyInput } from '../../core/limits.js';

// `http://` or `https://` then a host: WHATWG parsing would read `http:///etc/passwd`, `http:/x` and `http:\\x` as
// hosts `etc` and `x`, so only the raw text shows that the user gave no authority at all.
const WRITTEN_AUTHORITY = /^https?:\/\/[^/\\?#]/i;
// Names that are a machine's own, resolved without DNS: the SSRF guard classifies them (loopback) like IP literals.
const LOCAL_NAMES = new Set(['localhost']);

/** Control characters (C0, DEL, C1) shown as `\xNN`, so a URL quoted in a message cannot break a log line. */
export function printableUrl(text: string): string {
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (char) => `\\x${char.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * Parses an absolute http(s) URL given by a user (an argument, an API body): `invalid_url` when it does not parse,
 * has another scheme, or has no written authority (`http:///etc/passwd`, `http:/host`). Nothing about its host.
 */
export function parseHttpUrl(raw: string): URL {
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch (cause) {
    throw new FactoryError('invalid_url', `not an absolute URL: ${printableUrl(text)}`, { url: raw, cause });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FactoryError('invalid_url', `only http and https sites can be discovered, not ${url.protocol}`, { url: raw });
  }
  if (!WRITTEN_AUTHORITY.test(text)) {
    throw new FactoryError('invalid_url', `no host after ${url.protocol}//: write ${url.protocol}//host/path`, { url: printableUrl(text) });
  }
  return url;
}

/**
 * True when `host` (as the URL parser spells it) cannot be a public site: one label, not an IP literal nor
 * `localhost`, and not named by the user in `allowHosts` or `resolve` (any port). Such a name only resolves through
 * a search domain or an intranet resolver, which is what a URL from outside must not reach.
 */
export function isUnreachableSingleLabel(host: string, net: Pick<NetPolicyInput, 'allowHosts' | 'resolve'>): boolean {
  const name = host.replace(/\.$/, '');
  if (name.includes('.') || isIP(host.replace(/^\[|\]$/g, '')) !== 0 || LOCAL_NAMES.has(name)) return false;
  const named = [...(net.allowHosts ?? []).map(hostOfEntry), ...(net.resolve ?? []).map((entry) => entry.host.toLowerCase())];
  return !named.some((entry) => entry === host || entry === name);
}

// `host`, `host:port` or `[v6]:port` -> the host part, lower case (only names matter here, never IPv6).
function hostOfEntry(entry: string): string {
  return entry.trim().toLowerCase().replace(/:\d+$/, '');
}

/**
 * THE check of a site or sitemap URL given by a user, before any lookup: `parseHttpUrl`'s rules, and `invalid_url`
 * for a single-label host (`http://intranet/`) unless `--allow-host` / `--resolve` (net policy) names it.
 * `localhost` and IP literals pass: the SSRF guard classifies them.
 */
export function parseSiteUrl(raw: string, net: Pick<NetPolicyInput, 'allowHosts' | 'resolve'>): URL {
  const url = parseHttpUrl(raw);
  if (isUnreachableSingleLabel(url.hostname, net)) {
    throw new FactoryError(
      'invalid_url',
      `${url.hostname} is a single-label host name, not a public site; allow it with --allow-host ${url.hostname} or pin it with --resolve`,
      { url: raw },
    );
  }
  return url;
}
