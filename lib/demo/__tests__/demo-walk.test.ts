// The engine against the demo site's ground truth: the counts a user sees after `crawler-factory demo`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverSitemaps, walkSitemap, walkSitemapEntries } from '../../factory/sitemap.js';
import { startDemoSite, type DemoSite } from '../demo-site.js';

const net = { allowPrivate: true };

describe('the engine on the demo site', () => {
  let site: DemoSite;
  beforeAll(async () => {
    site = await startDemoSite({ scale: 0.02 });
  });
  afterAll(() => site.close());

  it('discovers the robots.txt sitemaps, relative line resolved and case duplicate dropped', async () => {
    expect(await discoverSitemaps(site.rootUrl, { net })).toEqual(site.expectation.robotsSitemaps);
  });

  it('walks every page URL once, alternates included, fetching each sitemap once and no cycle variant', async () => {
    const seen = new Set<string>();
    let yielded = 0;
    for (const root of site.expectation.robotsSitemaps) {
      for await (const batch of walkSitemap(root, { net })) {
        yielded += batch.length;
        for (const url of batch) seen.add(url);
      }
    }
    expect(yielded).toBe(site.expectation.all.pageUrls);
    expect(seen.size).toBe(site.expectation.all.pageUrls);
    for (const url of site.expectation.all.sitemapUrls) expect(site.hits(new URL(url).pathname), url).toBe(1);
    expect(site.hits('/sitemaps/products/index.xml/')).toBe(0);
  });

  it('carries the extensions and depths the expectation counts', async () => {
    const totals = { entries: 0, images: 0, videos: 0, news: 0, alternates: 0, maxDepth: 0 };
    for await (const batch of walkSitemapEntries(site.rootIndexUrl, { net })) {
      for (const entry of batch) {
        totals.entries += 1;
        totals.images += entry.images.length;
        totals.videos += entry.videos.length;
        totals.news += entry.news ? 1 : 0;
        totals.alternates += entry.alternates.length;
        totals.maxDepth = Math.max(totals.maxDepth, entry.depth);
      }
    }
    const { entries, images, videos, news, alternateLinks, maxDepth } = site.expectation.index;
    expect(totals).toEqual({ entries, images, videos, news, alternates: alternateLinks, maxDepth });
  });
});
