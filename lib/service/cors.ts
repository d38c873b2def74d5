/** Request headers a browser may send cross-origin: the bearer token and the JSON body's type. */
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key';

/** How long a browser may cache a preflight answer (10 minutes). */
const MAX_AGE_SECONDS = 600;

/**
 * CORS headers for an ordinary response: the caller's origin echoed only when it is listed exactly (never `*`,
 * never credentials: the API authenticates with a bearer token, not cookies), and `Vary: Origin` whenever the
 * answer depends on the origin, so a cache never serves one origin's answer to another.
 */
export function corsHeaders(request: Request, origins: readonly string[]): Record<string, string> {
  if (origins.length === 0) return {};
  const origin = request.headers.get('origin');
  if (origin === null || !origins.includes(origin)) return { vary: 'Origin' };
  return { vary: 'Origin', 'access-control-allow-origin': origin, 'access-control-expose-headers': 'Retry-After' };
}

/** The answer to `OPTIONS`: 204 with `Allow`, and for a listed origin the preflight's allowed methods and headers. */
export function preflightResponse(request: Request, allow: readonly string[], origins: readonly string[]): Response {
  const headers: Record<string, string> = { allow: allow.join(', '), ...corsHeaders(request, origins) };
  if (headers['access-control-allow-origin'] !== undefined) {
    headers['access-control-allow-methods'] = allow.join(', ');
    headers['access-control-allow-headers'] = ALLOWED_HEADERS;
    headers['access-control-max-age'] = String(MAX_AGE_SECONDS);
    delete headers['access-control-expose-headers'];
  }
  return new Response(null, { status: 204, headers });
}

/** A copy of `response` with `headers` added (a handler's Response may have immutable headers). */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  if (Object.keys(headers).length === 0) return response;
  const merged = new Headers(response.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}
