import { isIPv6 } from 'node:net';
import type { NetPolicy } from '../../core/limits.js';

/** The place a request goes: URL-style host (IPv6 in brackets), effective port, and the URL for messages. */
export interface Target {
  url: string;
  host: string;
  port: number;
}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

/** The target of a parsed URL, with the scheme's default port filled in. */
export function targetOf(url: URL): Target {
  return { url: url.href, host: url.hostname, port: effectivePort(url.protocol, url.port) };
}

/** Port a connection to `protocol` actually uses when the URL gives `port` (possibly empty). */
export function effectivePort(protocol: string, port: string | number): number {
  const given = Number(port);
  return given > 0 ? given : (DEFAULT_PORTS[protocol] ?? 0);
}

/** A host as the URL parser spells it (lower case, IPv4 canonical, IPv6 bracketed), or null when it is no host. */
export function normalizeHost(host: string): string | null {
  const text = isIPv6(host) ? `[${host}]` : host;
  try {
    return new URL(`http://${text}/`).hostname;
  } catch {
    return null;
  }
}

// `host`, `host:port`, `[v6]`, `[v6]:port` or a bare IPv6 address (no port then).
function parseHostEntry(entry: string): { host: string | null; port: number | null } {
  const bracketed = /^(\[[^\]]+\])(?::(\d+))?$/.exec(entry);
  if (bracketed) return { host: normalizeHost(bracketed[1] ?? ''), port: bracketed[2] ? Number(bracketed[2]) : null };
  const plain = /^([^:]+):(\d+)$/.exec(entry);
  if (plain) return { host: normalizeHost(plain[1] ?? ''), port: Number(plain[2]) };
  return { host: normalizeHost(entry), port: null };
}

/** True when `allowHosts` names this host (and port, when the entry gives one): the caller opened it on purpose. */
export function isHostAllowed(target: Target, net: NetPolicy): boolean {
  return net.allowHosts.some((entry) => {
    const { host, port } = parseHostEntry(entry.trim());
    return host === target.host && (port === null || port === target.port);
  });
}

/** The address a `resolve` entry pins this host:port to (curl --resolve), or null to use DNS. */
export function pinnedAddress(target: Target, net: NetPolicy): string | null {
  const entry = net.resolve.find((item) => normalizeHost(item.host) === target.host && item.port === target.port);
  return entry ? entry.address.replace(/^\[|\]$/g, '') : null;
}

/** A stable key for a policy, so equal policies share one connection pool. */
export function policyKey(net: NetPolicy): string {
  const hosts = [...net.allowHosts].sort();
  const resolve = net.resolve.map((item) => `${item.host}:${item.port}=${item.address}`).sort();
  return JSON.stringify([net.allowPrivate, hosts, resolve]);
}
