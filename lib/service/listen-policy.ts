import { isIP } from 'node:net';

/**
 * True when `host` (as given to `--host`) only accepts connections from this machine: `localhost`, 127.0.0.0/8,
 * `::1` (bracketed or not) and their IPv4-mapped forms. Wildcards (`0.0.0.0`, `::`) and every other name or
 * address are not: a name may resolve anywhere.
 */
export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (bare === 'localhost' || bare.endsWith('.localhost')) return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare)?.[1];
  const address = mapped ?? bare;
  if (isIP(address) === 4) return address.split('.')[0] === '127';
  if (isIP(address) === 6) return /^(0{0,4}:){7}0{0,3}1$|^::1$/.test(address);
  return false;
}

/** What `serve` needs to decide before it listens. */
export interface ListenCheck {
  host: string;
  /** FACTORY_API_TOKEN is set (the API then requires it on every route). */
  hasToken: boolean;
  /** The operator accepted an open API on the network (`--insecure`). */
  insecure: boolean;
}

/** The decision: loopback or not, and the reason to refuse starting (null: start). */
export interface ListenDecision {
  loopback: boolean;
  refusal: string | null;
}

/**
 * Refuses to serve the API without a token on an address other machines can reach, unless the operator says
 * `--insecure`: anyone on the network could otherwise run jobs (fetches from this host) and read their results.
 */
export function checkListenAddress(check: ListenCheck): ListenDecision {
  const loopback = isLoopbackHost(check.host);
  if (loopback || check.hasToken || check.insecure) return { loopback, refusal: null };
  return {
    loopback,
    refusal: `refusing to serve on ${check.host} without FACTORY_API_TOKEN: other machines could run jobs; set FACTORY_API_TOKEN, listen on 127.0.0.1, or pass --insecure`,
  };
}
