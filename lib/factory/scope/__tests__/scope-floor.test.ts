// The range's floor for a sitemap index: the seed's `children x 1,000` when the sampled children average at least
// 1,000 URLs (531 children -> [531,000, 26,550,000]), else only what was counted; a warning says which rule applied.
import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackServer, type CannedResponse, type LoopbackServer } from '../../../demo/loopback-server.js';
import { estimateScope } from '../scope-estimator.js';
import { XML, indexXml, pageUrls, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';

let server: LoopbackServer | null = null;
afterEach(async () => {
  await server?.close();
  server = null;
});

// An index of `children` urlsets; child i holds sizeOf(i) URLs, built when asked (only the samples are).
async function serveIndex(children: number, sizeOf: (i: number) => number, child: Partial<CannedResponse> = {}): Promise<LoopbackServer> {
  let origin = '';
  server = await startLoopbackServer((request) => {
    const path = request.url ?? '/';
    if (path === '/robots.txt') return { body: 'Sitemap: /index.xml\n' };
    if (path === '/index.xml') return { headers: XML, body: indexXml(Array.from({ length: children }, (_, i) => `${origin}/c-${i}.xml`)) };
    const i = /^\/c-(\d+)\.xml$/.exec(path)?.[1];
    return i === undefined ? null : { headers: XML, body: urlsetXml(pageUrls(origin, sizeOf(Number(i)), `c${i}`)), ...child };
  });
  origin = server.origin;
  return server;
}

const open = { net: { allowPrivate: true } };

describe('estimateScope: the floor of an index range', () => {
  it("meets the seed's criterion when the samples support it: 531 children of 1,500 URLs -> [531,000, 26,550,000]", async () => {
    const site = await serveIndex(531, () => 1_500);
    const result = await estimateScope(`${site.origin}/`, open);
    expect(result).toMatchObject({ subSitemapCount: 531, sampledChildren: 3, urlEstimate: 531 * 1_500 });
    expect(result.urlEstimateRange).toEqual([531 * 1_000, 531 * 50_000]);
    expect(result.warnings).toContain("range floor: 531 sub-sitemaps x 1,000 URLs (the seed's rule), as the 3 sampled average 1,500 URLs");
  });

  it('keeps the counted floor when the samples average under 1,000 URLs, and says why', async () => {
    // Samples are the first, middle and last children: 2,000 + 10 + 10 -> an average of 673.
    const site = await serveIndex(531, (i) => (i === 0 ? 2_000 : 10));
    const result = await estimateScope(`${site.origin}/`, open);
    expect(result.urlEstimateRange).toEqual([2_020, 531 * 50_000]);
    expect(result.warnings).toContain('range floor: the 2,020 URLs counted, not sub-sitemaps x 1,000 (the sampled average 673 URLs, under 1,000)');
  });

  it('keeps the counted floor when no child could be sampled in time', async () => {
    const site = await serveIndex(40, () => 5_000, { delayMs: 2_000 });
    const result = await estimateScope(`${site.origin}/`, { ...open, deadlineMs: 400 });
    expect(result.urlEstimateRange).toEqual([0, 40 * 50_000]);
    expect(result.warnings).toContain('range floor: the 0 URLs counted, not sub-sitemaps x 1,000 (no sub-sitemap was sampled)');
  });
});
