import { isFactoryError } from '../lib/index.js';

/** A fatal error as data: kind, URL and message (a non-factory error is reported as what it is). */
export function fatalBody(error: unknown): { kind: string; url: string | null; message: string } {
  if (isFactoryError(error)) return { kind: error.kind, url: error.url, message: error.message };
  return { kind: 'internal', url: null, message: error instanceof Error ? error.message : String(error) };
}

/** What to do next, for the errors a user can fix with a flag. */
export function hint(kind: string): string {
  if (kind === 'blocked_ssrf')
    return '\n  hint: the target is loopback or private; allow it with --allow-host HOST[:PORT] (the server: FACTORY_ALLOW_HOSTS) or --allow-private';
  if (kind === 'timeout') return '\n  hint: raise --timeout MS';
  if (kind === 'not_sitemap') return '\n  hint: pass the sitemap URL itself (walk https://host/sitemap.xml) or check robots.txt';
  return '';
}

// Kinds that mean "change what you passed": a URL that is not http(s), a malformed job id, a place that cannot hold the inventory.
const REFUSED_ARGUMENT = new Set(['invalid_url', 'bad_request', 'config']);

/**
 * The exit code of a fatal error: 2 for a refused argument or configuration, 1 for anything else. Errors met while
 * walking (a redirect to ftp:) carry the sitemap's depth: they are the walk's, exit 1.
 */
export function fatalExitCode(error: unknown): 1 | 2 {
  return isFactoryError(error) && REFUSED_ARGUMENT.has(error.kind) && error.context.depth === undefined ? 2 : 1;
}

/** `crawler-factory: kind: message (url)` and the hint, for stderr. */
export function fatalLine(error: unknown): string {
  const body = fatalBody(error);
  return `crawler-factory: ${body.kind}: ${body.message}${body.url ? ` (${body.url})` : ''}${hint(body.kind)}\n`;
}
