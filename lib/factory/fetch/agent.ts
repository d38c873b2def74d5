import { isIPv6 } from 'node:net';
import type { buildConnector as BuildConnector, Dispatcher, Pool } from 'undici';
import type { NetPolicy, ProxyOptions } from '../../core/limits.js';
import { createLogger } from '../../utils/logger.js';
import { effectivePort, policyKey, type Target } from './net-policy.js';
import { guardPausedParser } from './paused-parser-guard.js';
import { resolveTarget } from './resolve-target.js';
import { Agent, buildConnector, loadProxyAgent } from './undici-parts.js';

/** Response header bytes accepted (status line and headers); a bigger head is a broken or hostile server. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** How long an idle keep-alive connection waits for the next request of a walk. */
const KEEP_ALIVE_MS = 10_000;

const log = createLogger('factory:fetch');
const agents = new Map<string, Dispatcher>();

/** The keep-alive connection pool for a policy: one per distinct policy, reused by every request. */
export function agentFor(net: NetPolicy): Dispatcher {
  const key = policyKey(net);
  let agent = agents.get(key);
  if (agent === undefined) {
    agent = new Agent({ connect: guardedConnector(net), maxHeaderSize: MAX_HEADER_BYTES, keepAliveTimeout: KEEP_ALIVE_MS });
    agents.set(key, agent);
  }
  return agent;
}

/**
 * The pool of connections through an HTTP(S) proxy (CONNECT tunnels, for http: targets too). The proxy itself is
 * the operator's choice and is not checked; every target is checked with DNS before it is asked for (http-client).
 */
export async function proxyAgentFor(proxy: ProxyOptions): Promise<Dispatcher> {
  const key = `proxy ${proxy.url}`;
  let agent = agents.get(key);
  if (agent === undefined) {
    const { ProxyAgent, Pool } = await loadProxyAgent();
    // Another request may have made it while the module loaded. The tunnels' sockets get the paused-parser guard.
    const factory = (origin: string | URL, options: Pool.Options): Dispatcher =>
      new Pool(origin, { ...options, connect: typeof options.connect === 'function' ? withGuard(options.connect) : options.connect });
    agent = agents.get(key) ?? new ProxyAgent({ uri: proxy.url, proxyTunnel: true, maxHeaderSize: MAX_HEADER_BYTES, keepAliveTimeout: KEEP_ALIVE_MS, factory });
    agents.set(key, agent);
  }
  return agent;
}

/** Closes every pooled connection (end of a CLI run, end of a test file). */
export async function closeAgents(): Promise<void> {
  const open = [...agents.values()];
  agents.clear();
  await Promise.all(open.map((agent) => agent.close()));
}

// Resolves and checks the addresses itself, then dials those very IPs: there is no second DNS answer to rebind.
function guardedConnector(net: NetPolicy): BuildConnector.connector {
  const dial = buildConnector({});
  return withGuard((options, callback) => {
    resolveTarget(connectTarget(options), net)
      .then((addresses) => dialInTurn(dial, { options, addresses }, callback))
      .catch((error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), null));
  });
}

// Every socket handed to undici carries the paused-parser guard (a server closing the connection must not crash us).
function withGuard(connect: BuildConnector.connector): BuildConnector.connector {
  return (options, callback) => connect(options, (error, socket) => (error === null ? callback(null, guardPausedParser(socket)) : callback(error, null)));
}

/** Dials checked addresses in turn, moving on when one refuses or is unreachable (IPv6 answers on an IPv4-only host). */
export function dialInTurn(
  dial: BuildConnector.connector,
  plan: { options: BuildConnector.Options; addresses: string[] },
  callback: BuildConnector.Callback,
): void {
  const [address = '', ...rest] = plan.addresses;
  const { options } = plan;
  // servername stays the name, so TLS still checks the certificate against the host, not the IP.
  const servername = options.servername ?? serverName(options.hostname);
  dial({ ...options, hostname: address, servername }, (...args) => {
    if (args[0] === null || rest.length === 0) return callback(...args);
    log.debug({ event: 'dial_retry', host: options.hostname, address, error: args[0].message }, 'trying the next address');
    dialInTurn(dial, { options, addresses: rest }, callback);
  });
}

// undici hands over IPv6 hosts without brackets; the policy speaks URL hostnames.
function connectTarget(options: BuildConnector.Options): Target {
  return {
    url: `${options.protocol}//${options.host ?? options.hostname}`,
    host: isIPv6(options.hostname) ? `[${options.hostname}]` : options.hostname,
    port: effectivePort(options.protocol, options.port),
  };
}

// SNI must not carry an IP address (RFC 6066).
function serverName(hostname: string): string | undefined {
  return /^[\d.]+$/.test(hostname) || isIPv6(hostname) ? undefined : hostname;
}
