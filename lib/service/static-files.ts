import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve, sep } from 'node:path';
import { FactoryError } from '../core/errors.js';

/** Content types of the files the console ships; anything else is served as bytes. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Headers of every console file: its own scripts, styles and API calls only (no inline script a stored value could
 * inject), never framed by another page (clickjacking), no type sniffing. vercel.json sets the same on Vercel.
 */
export const CONSOLE_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * A file of `publicDir` for a request path (`/` -> index.html), or null: the decoded path is resolved and must stay
 * inside the folder, so `..`, encoded `%2e%2e`, backslashes and NUL bytes never reach outside it.
 */
export async function staticResponse(publicDir: string, pathname: string, method: string): Promise<Response | null> {
  if (method !== 'GET' && method !== 'HEAD') return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return null;
  const root = resolve(publicDir);
  // join, not resolve(root, `.${path}`): Vercel's file tracer reads the latter as "every dot-file of the project" and
  // copies .vercel/output into each function it builds.
  const file = join(root, decoded.endsWith('/') ? `${decoded}index.html` : decoded);
  if (!file.startsWith(`${root}${sep}`)) return null;
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) return null;
  const body = method === 'HEAD' ? null : await readFile(file);
  return new Response(body, {
    headers: { 'content-type': CONTENT_TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-cache', ...CONSOLE_SECURITY_HEADERS },
  });
}

/**
 * Refuses a console folder without index.html: a build or a package that left the console out would otherwise
 * start fine and answer `/` with 404, which nobody notices until an operator opens it.
 */
export async function assertConsoleDir(publicDir: string): Promise<void> {
  const index = await stat(join(publicDir, 'index.html')).catch(() => null);
  if (!index?.isFile()) throw new FactoryError('config', `the ops console is missing: no index.html in ${resolve(publicDir)}`);
}
