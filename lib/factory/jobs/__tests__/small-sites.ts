import { startLoopbackServer, type CannedResponse, type LoopbackServer } from '../../../demo/loopback-server.js';

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"';

/** A urlset of `count` pages under `prefix`. */
export function urlsetOf(origin: string, prefix: string, count: number): string {
  const entries = Array.from({ length: count }, (_, i) => `<url><loc>${origin}/${prefix}/${i}</loc></url>`);
  return `${XML}<urlset ${NS}>\n${entries.join('\n')}\n</urlset>\n`;
}

/** A sitemap index listing `paths`. */
export function indexOf(origin: string, paths: string[]): string {
  return `${XML}<sitemapindex ${NS}>${paths.map((path) => `<sitemap><loc>${origin}${path}</loc></sitemap>`).join('')}</sitemapindex>`;
}

/** Starts a server whose routes are built once its origin is known; unknown paths answer 404. */
export async function startSite(routes: (origin: string) => Record<string, CannedResponse>): Promise<LoopbackServer> {
  let table: Record<string, CannedResponse> = {};
  const server = await startLoopbackServer((request) => table[(request.url ?? '/').split('?')[0] ?? '/'] ?? null);
  table = routes(server.origin);
  return server;
}

/** A urlset of pages under `prefix`, streamed in `chunks` pieces with `chunkDelayMs` between them (a slow, big sitemap). */
export function slowUrlset(origin: string, count: number, chunks: number, chunkDelayMs: number, prefix = 'slow'): CannedResponse {
  const text = urlsetOf(origin, prefix, count);
  const size = Math.ceil(text.length / chunks);
  return {
    chunks: Array.from({ length: chunks }, (_, i) => text.slice(i * size, (i + 1) * size)),
    chunkDelayMs,
    headers: { 'content-type': 'application/xml' },
  };
}

/** The URLs urlsetOf(origin, prefix, count) lists. */
export function pagesOf(origin: string, prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `${origin}/${prefix}/${i}`);
}
