import { isIP } from 'node:net';
import { FetchError } from '../../core/errors.js';
import type { NetPolicy } from '../../core/limits.js';
import { createLogger } from '../../utils/logger.js';
import { classifyAddress, type AddressClass } from './ip-classifier.js';
import { isHostAllowed, pinnedAddress, targetOf, type Target } from './net-policy.js';

const log = createLogger('factory:fetch');

/** Schemes a sitemap may be fetched over; `file:`, `ftp:`, `gopher:` and friends reach things HTTP should not. */
const ALLOWED_SCHEMES = new Set(['http:', 'https:']);

/** Refuses, before any connection, a URL whose scheme is not HTTP(S) or whose IP literal (or pinned address) is off limits. */
export function assertUrlAllowed(url: URL, net: NetPolicy): void {
  if (!ALLOWED_SCHEMES.has(url.protocol)) {
    throw new FetchError('invalid_url', `scheme ${url.protocol} is not allowed (http and https only)`, { url: url.href });
  }
  const target = targetOf(url);
  const address = pinnedAddress(target, net) ?? ipLiteral(target.host);
  if (address !== null) assertAddressAllowed(target, address, net);
}

/** Refuses to dial `address` for `target` unless it is public or the policy opens it. */
export function assertAddressAllowed(target: Target, address: string, net: NetPolicy): void {
  const cls = classifyAddress(address);
  if (isReachable(cls, target, net)) return;
  log.warn({ event: 'ssrf_blocked', url: target.url, host: target.host, address, class: cls }, 'refused a non-public address');
  throw new FetchError('blocked_ssrf', `${target.host} resolves to ${address}, a ${cls} address`, { url: target.url });
}

/** True when the policy lets this request dial an address of class `cls`. */
export function isReachable(cls: AddressClass, target: Target, net: NetPolicy): boolean {
  if (cls === 'public') return true;
  if (cls === 'invalid') return false;
  if (isHostAllowed(target, net)) return true;
  // Metadata endpoints hand out cloud credentials: only an explicit allowHosts entry opens them.
  return net.allowPrivate && cls !== 'metadata';
}

/** The bare IP of a URL-style host (`[::1]` -> `::1`), or null for a name that needs DNS. */
export function ipLiteral(host: string): string | null {
  const bare = host.replace(/^\[|\]$/g, '');
  return isIP(bare) === 0 ? null : bare;
}
