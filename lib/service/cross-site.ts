import { RequestError } from '../core/errors.js';

/** Methods that change nothing: never refused as cross-site. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `Sec-Fetch-Site` values a browser sends for a request the service's own page (or the user) made. */
const OWN_FETCH_SITES = new Set(['same-origin', 'none']);

/**
 * Refuses a state-changing request a page of another origin could have sent, token or not (a token-less loopback
 * `serve` is the easy target): a browser's `Origin` must be this service's own or one the deployment lists in
 * `FACTORY_CORS_ORIGINS`; without `Origin`, `Sec-Fetch-Site` must say same-origin (a port of the same host is
 * another site here). Callers outside a browser (curl, the orchestrator, QStash) send neither and pass. A body must
 * be JSON: `text/plain` and form bodies are what a page can send without a CORS preflight.
 */
export function assertOwnSiteWrite(request: Request, corsOrigins: readonly string[]): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.get('origin');
  if (origin !== null) {
    if (origin !== ownOrigin(request) && !corsOrigins.includes(origin)) throw crossSite(`a page on ${origin}`);
  } else {
    const site = request.headers.get('sec-fetch-site');
    if (site !== null && !OWN_FETCH_SITES.has(site)) throw crossSite(`a ${site} page`);
  }
  if (hasBody(request) && !isJson(request.headers.get('content-type'))) {
    throw new RequestError(
      'bad_request',
      "the request body must be JSON sent as Content-Type: application/json (curl: --json '{...}' or -H 'content-type: application/json')",
    );
  }
}

// The origin the client addressed: the Host it sent, on the request's scheme (serve builds request.url from its own
// listening address, which a client may reach as localhost or 127.0.0.1).
function ownOrigin(request: Request): string {
  const url = new URL(request.url);
  const host = request.headers.get('host') ?? url.host;
  return `${url.protocol}//${host}`;
}

function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  return (length !== null && length !== '0') || request.headers.has('transfer-encoding');
}

function isJson(contentType: string | null): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

function crossSite(who: string): RequestError {
  return new RequestError(
    'forbidden',
    `${who} may not change this service: state-changing calls come from the console itself, a listed FACTORY_CORS_ORIGINS origin, or a client outside a browser`,
  );
}
