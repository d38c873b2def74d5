import { lookup } from 'node:dns/promises';
import { FetchError } from '../../core/errors.js';
import type { NetPolicy } from '../../core/limits.js';
import { createLogger } from '../../utils/logger.js';
import { classifyAddress } from './ip-classifier.js';
import { pinnedAddress, targetOf, type Target } from './net-policy.js';
import { assertAddressAllowed, assertUrlAllowed, ipLiteral, isReachable } from './ssrf-guard.js';

const log = createLogger('factory:fetch');

/** The addresses `target` may be dialled at, in resolver order: pinned, literal or from DNS, each checked against the policy. */
export async function resolveTarget(target: Target, net: NetPolicy): Promise<string[]> {
  const fixed = pinnedAddress(target, net) ?? ipLiteral(target.host);
  const answers = fixed === null ? await lookupAll(target) : [fixed];
  // Only checked answers are dialled; a name with a private answer among public ones cannot steer us there.
  const usable = answers.filter((address) => isReachable(classifyAddress(address), target, net));
  if (usable.length > 0) return usable;
  assertAddressAllowed(target, answers[0] ?? '', net);
  throw new FetchError('blocked_ssrf', `no allowed address for ${target.host}`, { url: target.url });
}

// System DNS (getaddrinfo, so /etc/hosts and `localhost` count), every answer.
async function lookupAll(target: Target): Promise<string[]> {
  try {
    const answers = await lookup(target.host, { all: true });
    return answers.map((answer) => answer.address);
  } catch (error) {
    log.warn({ event: 'dns_failed', url: target.url, host: target.host }, 'DNS lookup failed');
    throw new FetchError('fetch_failed', `cannot resolve ${target.host}`, { url: target.url, cause: error });
  }
}

/**
 * Checks a URL's host as a fetch would, DNS included, without connecting: `blocked_ssrf` when no answer is
 * allowed. A name that does not resolve passes (the fetch will report it): only refusals are decided here.
 */
export async function assertHostAllowed(url: URL, net: NetPolicy): Promise<void> {
  assertUrlAllowed(url, net);
  await resolveTarget(targetOf(url), net).catch((error: unknown) => {
    if (error instanceof FetchError && error.kind === 'blocked_ssrf') throw error;
  });
}
