/**
 * The parts of undici a direct request uses, each loaded from its own file instead of through undici's index,
 * which loads all of undici (fetch, WebSocket, caches, mocks, ...): measured, 12 MiB more at the peak of a
 * 5,000,000-URL walk, which is allowed 160 MiB in all (issue 11; `bench/HISTORY.md`).
 * The proxy agent is the exception: it tunnels with dispatcher methods that only undici's index attaches, so a
 * walk through a proxy loads the index on its first proxied request (`loadProxyAgent`).
 * The paths are undici's internals, so package.json pins undici exactly and `undici-parts.test.ts` checks
 * each part is the very one undici's index exports: an upgrade that moves a file fails there first.
 */
import type { Dispatcher, Agent as AgentClass, ProxyAgent as ProxyAgentClass, Pool as PoolClass, buildConnector as BuildConnector } from 'undici';
import AgentPart from 'undici/lib/dispatcher/agent.js';
import buildConnectorPart from 'undici/lib/core/connect.js';
import requestPart from 'undici/lib/api/api-request.js';
import symbolsPart from 'undici/lib/core/symbols.js';

// Typed by undici's public names, so the declarations built from this file need no more than undici's own.
export const Agent: typeof AgentClass = AgentPart;
export const buildConnector: typeof BuildConnector = buildConnectorPart;
/** The symbol under which undici keeps a socket's HTTP/1 parser (paused-parser-guard.ts). */
export const kParser: symbol = symbolsPart.kParser;

/** `dispatcher.request(options)`: the method undici's index attaches to every dispatcher, called without it. */
export function request(dispatcher: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData> {
  return requestPart.call(dispatcher, options);
}

/** undici's ProxyAgent and the Pool its tunnels are made of, through undici's index (see above). */
export async function loadProxyAgent(): Promise<{ ProxyAgent: typeof ProxyAgentClass; Pool: typeof PoolClass }> {
  const { ProxyAgent, Pool } = await import('undici');
  return { ProxyAgent, Pool };
}
