import { gzipSync } from 'node:zlib';
import { startLoopbackServer, type CannedResponse, type LoopbackServer } from '../../../demo/loopback-server.js';

/** Shape of the test site: a root index -> `mids` indexes -> `subs` indexes each -> `leaves` urlsets each. */
export interface NestedSiteOptions {
  mids?: number;
  subs?: number;
  leaves?: number;
  /** Mean URLs per urlset; sizes vary around it so shards end mid-sitemap. */
  meanUrls?: number;
  /** Added before every answer (slow sites for the multi-worker test). */
  delayMs?: number;
}

/** A running nested site with its ground truth: every page URL a complete walk must find, once. */
export interface NestedSite {
  server: LoopbackServer;
  rootUrl: string;
  rootIndexUrl: string;
  expected: Set<string>;
  /** The child that answers 500 (reported once, never read). */
  failingUrl: string;
  close(): Promise<void>;
}

const XML = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"';

const indexBody = (locs: string[]) => `${XML}<sitemapindex ${NS}>${locs.map((loc) => `<sitemap><loc>${loc}</loc></sitemap>`).join('\n')}</sitemapindex>`;

function leafEntry(loc: string, alternate: string | null): string {
  const link = alternate ? `<xhtml:link rel="alternate" hreflang="de" href="${alternate}"/>` : '';
  return `<url><loc>${loc}</loc>${link}</url>`;
}

/** Builds bodies and the ground truth for a plan; leaves k%3==2 travel gzipped, leaves k==1 carry hreflang alternates. */
function buildSite(origin: string, shape: Required<Omit<NestedSiteOptions, 'delayMs'>>) {
  const bodies = new Map<string, Buffer>();
  const expected = new Set<string>();
  const at = (path: string) => `${origin}${path}`;
  const mids = Array.from({ length: shape.mids }, (_, i) => `/sitemaps/m${i}.xml`);
  bodies.set('/robots.txt', Buffer.from(`User-agent: *\nDisallow: /private/\nSitemap: ${at('/sitemaps/root.xml')}\n`));
  // The root also lists itself in another spelling: a cycle the identity key must catch.
  bodies.set('/sitemaps/root.xml', Buffer.from(indexBody([...mids.map(at), at('/sitemaps/root.xml').replace('http:', 'HTTP:')])));
  for (let i = 0; i < shape.mids; i += 1) {
    const subs = Array.from({ length: shape.subs }, (_, j) => `/sitemaps/m${i}/s${j}.xml`);
    const extra = i === shape.mids - 1 ? [at('/sitemaps/broken.xml')] : [at(`/sitemaps/m${(i + 1) % shape.mids}.xml/`)];
    bodies.set(`/sitemaps/m${i}.xml`, Buffer.from(indexBody([...subs.map(at), ...extra])));
    for (let j = 0; j < shape.subs; j += 1) addSub({ bodies, expected, at, shape }, i, j);
  }
  return { bodies, expected };
}

type SiteParts = { bodies: Map<string, Buffer>; expected: Set<string>; at: (path: string) => string; shape: Required<Omit<NestedSiteOptions, 'delayMs'>> };

function addSub(site: SiteParts, i: number, j: number): void {
  const leaves = Array.from({ length: site.shape.leaves }, (_, k) => `/sitemaps/m${i}/s${j}/l${k}.xml${k % 3 === 2 ? '.gz' : ''}`);
  // Sub 1 lists sub 0's first leaf again (a duplicate) and sub 0 lists the root (a deeper cycle).
  const extra = j === 1 ? [site.at(`/sitemaps/m${i}/s0/l0.xml`)] : j === 0 ? [site.at('/sitemaps/root.xml')] : [];
  site.bodies.set(`/sitemaps/m${i}/s${j}.xml`, Buffer.from(indexBody([...leaves.map(site.at), ...extra])));
  leaves.forEach((path, k) => {
    const mean = site.shape.meanUrls;
    const count = Math.floor(mean / 2) + (((i * 31 + j * 17 + k * 7) * 97) % (mean + 1));
    const entries = Array.from({ length: count }, (_, n) => {
      const loc = site.at(`/p/m${i}/s${j}/l${k}/${n}`);
      const alternate = k === 1 ? site.at(`/de/p/m${i}/s${j}/l${k}/${n}`) : null;
      site.expected.add(loc);
      if (alternate) site.expected.add(alternate);
      return leafEntry(loc, alternate);
    });
    const xml = Buffer.from(`${XML}<urlset ${NS}>\n${entries.join('\n')}\n</urlset>\n`);
    site.bodies.set(path, path.endsWith('.gz') ? gzipSync(xml) : xml);
  });
}

/** Starts the site on a free loopback port. */
export async function startNestedSite(options: NestedSiteOptions = {}): Promise<NestedSite> {
  const shape = { mids: options.mids ?? 4, subs: options.subs ?? 5, leaves: options.leaves ?? 5, meanUrls: options.meanUrls ?? 1000 };
  let bodies = new Map<string, Buffer>();
  const delay = options.delayMs ? { delayMs: options.delayMs } : {};
  const server = await startLoopbackServer((request): CannedResponse => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (path === '/sitemaps/broken.xml') return { status: 500, body: 'boom', ...delay };
    const body = bodies.get(path);
    return body
      ? { body, headers: { 'content-type': path.endsWith('.gz') ? 'application/gzip' : 'application/xml' }, ...delay }
      : { status: 404, body: 'not found', ...delay };
  });
  const built = buildSite(server.origin, shape);
  bodies = built.bodies;
  return {
    server,
    rootUrl: `${server.origin}/`,
    rootIndexUrl: server.url('/sitemaps/root.xml'),
    expected: built.expected,
    failingUrl: server.url('/sitemaps/broken.xml'),
    close: () => server.close(),
  };
}
