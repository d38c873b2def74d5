import type { ProxyOptions } from '../../core/limits.js';

/** Whether a NO_PROXY entry (`host`, `host:port`, `.suffix`, `*.suffix`, `*`) covers this URL's host. */
function bypasses(entry: string, url: URL): boolean {
  const rule = entry.trim().toLowerCase();
  if (rule === '') return false;
  if (rule === '*') return true;
  const [name = '', port] = rule.split(/:(?=\d+$)/);
  if (port !== undefined && port !== (url.port || (url.protocol === 'https:' ? '443' : '80'))) return false;
  const host = url.hostname.toLowerCase();
  const suffix = name.replace(/^\*?\./, '');
  return host === suffix || host.endsWith(`.${suffix}`);
}

/** The proxy this URL goes through, or null when none is set or NO_PROXY names the host. */
export function proxyFor(url: URL, proxy: ProxyOptions | null | undefined): ProxyOptions | null {
  if (!proxy) return null;
  return proxy.noProxy.some((entry) => bypasses(entry, url)) ? null : proxy;
}

/**
 * The proxy from the conventional variables: HTTPS_PROXY (or https_proxy), else HTTP_PROXY, else ALL_PROXY,
 * with NO_PROXY's comma-separated hosts; null when none is set. An explicit `--proxy` wins over these.
 */
export function proxyFromEnv(env: NodeJS.ProcessEnv, explicit?: string): { url: string; noProxy: string[] } | null {
  const url = explicit ?? env.HTTPS_PROXY ?? env.https_proxy ?? env.HTTP_PROXY ?? env.http_proxy ?? env.ALL_PROXY ?? env.all_proxy;
  if (!url) return null;
  const noProxy = (env.NO_PROXY ?? env.no_proxy ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  return { url, noProxy };
}
