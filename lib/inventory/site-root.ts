import { setTimeout as sleep } from 'node:timers/promises';
import { FactoryError } from '../core/errors.js';
import { assertHostAllowed } from '../factory/fetch/index.js';
import { parseSiteUrl } from '../factory/url/site-url.js';
import type { NetPolicy } from '../core/limits.js';

/** How long the DNS part of the check may take: a name that does not answer in time is left to the sync's own checks. */
const DNS_CHECK_MS = 3_000;

/**
 * Checks a site's root URL as a sync of it would be checked, before it is stored: an absolute http(s) URL with a
 * written, non-single-label host (`invalid_url`, `parseSiteUrl`), no credentials (`invalid_url`: they would never be
 * sent), and a host the deployment's network policy lets a sync fetch when `net` is given (`blocked_ssrf`, with DNS: a
 * metadata or private root is refused now, not at its first sync).
 */
export async function checkSiteRoot(rootUrl: string, net?: NetPolicy): Promise<URL> {
  // The engine's one check of a user's URL: a written host (`http:///etc/passwd` is refused), no single-label name.
  const root = parseSiteUrl(rootUrl, net ?? {});
  if (root.username !== '' || root.password !== '') {
    // The URL is not echoed: it holds a password.
    throw new FactoryError('invalid_url', 'a root URL must not hold credentials (user:password@): credentials are never sent to a site');
  }
  // Without a policy (the library, inventory tests) only the URL itself is checked: every sync applies its own.
  if (net === undefined) return root;
  const checked = assertHostAllowed(root, net);
  // A refusal that comes after the deadline is the sync's to report: it must not surface as an unhandled rejection.
  checked.catch(() => undefined);
  await Promise.race([checked, sleep(DNS_CHECK_MS, undefined, { ref: false })]);
  return root;
}
