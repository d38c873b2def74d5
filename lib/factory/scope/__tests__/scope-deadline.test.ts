import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import type { CannedResponse, LoopbackServer } from '../../../demo/loopback-server.js';
import { useRouteSites } from '../../../../test/helpers/route-site.js';
import { FALLBACK_SITEMAP_PATHS } from '../../discovery/discovery.js';
import { estimateScope, type EstimateOptions } from '../scope-estimator.js';
import type { ScopeEstimate } from '../../../core/types.js';
import { XML, indexXml, pageUrls, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';

const open: EstimateOptions = { net: { allowPrivate: true } };
const HANG: CannedResponse = { delayMs: 20_000, body: '' };
// The contract: the deadline plus 250 ms of bookkeeping. Wall time around the call gets slack for a loaded CI machine.
const GRACE_MS = 250;
const WALL_SLACK_MS = 1_500;
const serve = useRouteSites();

async function timedEstimate(site: LoopbackServer, deadlineMs: number): Promise<{ result: ScopeEstimate; wallMs: number }> {
  const started = performance.now();
  const result = await estimateScope(`${site.origin}/`, { ...open, deadlineMs });
  const wallMs = performance.now() - started;
  expect(result.probeMs).toBeLessThanOrEqual(deadlineMs + GRACE_MS);
  expect(wallMs).toBeLessThan(deadlineMs + WALL_SLACK_MS);
  return { result, wallMs };
}

describe('estimateScope: one deadline for every probe', () => {
  it('a hanging robots.txt: answers within the deadline, playwright, with a warning', async () => {
    const site = await serve(() => ({ '/robots.txt': HANG }));
    const { result } = await timedEstimate(site, 400);
    expect(result).toMatchObject({ transport: 'playwright', urlEstimate: null });
    expect(result.warnings.join('\n')).toContain('robots.txt did not answer');
  });

  it('hanging fallback paths after a missing robots.txt: answers within the deadline and says the paths were not all probed', async () => {
    const site = await serve(() => Object.fromEntries(FALLBACK_SITEMAP_PATHS.map((path) => [`/${path}`, HANG])));
    const { result } = await timedEstimate(site, 500);
    expect(result).toMatchObject({ sitemaps: [], urlEstimate: null });
    expect(result.warnings.join('\n')).toContain('well-known sitemap paths could not all be probed within the 500 ms deadline');
  });

  it('a slow-drip top sitemap: cut at the deadline, what was read is a floor, the range still holds the true count', async () => {
    const chunks = urlsetXml(pageUrls('http://example.com', 400)).match(/[\s\S]{1,200}/g) ?? [];
    const site = await serve(() => ({
      '/robots.txt': { body: 'Sitemap: /drip.xml\n' },
      '/drip.xml': { headers: XML, chunks, chunkDelayMs: 40 },
    }));
    const { result } = await timedEstimate(site, 600);
    expect(result.urlEstimateRange[0]).toBeLessThan(400);
    expect(result.urlEstimateRange[1]).toBeGreaterThanOrEqual(400);
    expect(result.warnings.join('\n')).toContain('cut by the 600 ms deadline');
  });

  it('deadlineMs lowers the default and budgetMs is still accepted as its former name', async () => {
    const site = await serve(() => ({ '/robots.txt': HANG }));
    const started = performance.now();
    const result = await estimateScope(`${site.origin}/`, { ...open, budgetMs: 300 });
    expect(performance.now() - started).toBeLessThan(300 + WALL_SLACK_MS);
    expect(result.transport).toBe('playwright');
  });
});

describe('estimateScope: the range always holds the true count', () => {
  it('a child sitemap that stalls before its root element widens the range by the per-file cap instead of narrowing it', async () => {
    const site = await serve((origin) => ({
      '/robots.txt': { body: 'Sitemap: /index.xml\n' },
      '/index.xml': { headers: XML, body: indexXml([`${origin}/a.xml`, `${origin}/stall.xml`]) },
      '/a.xml': { headers: XML, body: urlsetXml(pageUrls(origin, 30, 'a')) },
      // Headers and the XML declaration, then nothing: the walk (with its 30 s timeout) would read 70 URLs here.
      '/stall.xml': { headers: XML, chunks: ['<?xml version="1.0" encoding="UTF-8"?>\n'], chunkDelayMs: 20_000 },
    }));
    const { result } = await timedEstimate(site, 600);
    const [low, high] = result.urlEstimateRange;
    expect(low).toBeLessThanOrEqual(30 + 70);
    expect(high).toBeGreaterThanOrEqual(30 + 70);
    expect(high).toBeGreaterThanOrEqual(30 + 50_000);
  });

  it('a top sitemap that stalls before its root element is unknown, not empty: [0, per-file cap]', async () => {
    const site = await serve(() => ({
      '/robots.txt': { body: 'Sitemap: /stall.xml\n' },
      '/stall.xml': { headers: XML, chunks: ['<?xml version="1.0"?>'], chunkDelayMs: 20_000 },
    }));
    const { result } = await timedEstimate(site, 400);
    expect(result.urlEstimateRange).toEqual([0, 50_000]);
  });

  it('hreflang alternates that point at locs listed earlier without alternates do not multiply the count', async () => {
    const site = await serve((origin) => {
      const en = pageUrls(origin, 40, 'en');
      const de = pageUrls(origin, 40, 'de');
      // German pages first, plain; then English pages whose alternates name those German pages (host case varied).
      const body = urlsetXml([...de, ...en], (_loc, i) =>
        i < 40
          ? ''
          : `<xhtml:link rel="alternate" hreflang="de" href="${(de[i - 40] ?? '').replace('127.0.0.1', '127.0.0.1').replace('http://', 'HTTP://')}"/>`,
      );
      return { '/robots.txt': { body: 'Sitemap: /sitemap.xml\n' }, '/sitemap.xml': { headers: XML, body } };
    });
    const result = await estimateScope(`${site.origin}/`, open);
    expect(result.urlEstimateRange).toEqual([80, 80]);
    expect(result.urlEstimate).toBe(80);
  });
});
