import { describe, expect, it } from 'vitest';
import { pageUrls, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';
import type { OpenedSitemap } from '../../fetch/types.js';
import { resolveWalkOptions } from '../../../core/limits.js';
import { createUrlMapper } from '../../sitemap.js';
import { readSitemap, type SitemapOpener } from '../sitemap-reader.js';

const URL_ = 'https://e.com/s.xml';
const locs = pageUrls('https://e.com', 600);

// The document in two network chunks of 300 entries each, so each parser step holds 300 page URLs.
const twoChunks: SitemapOpener = async () => {
  const xml = urlsetXml(locs);
  const cut = xml.indexOf('<url>', xml.indexOf(`<loc>${locs[300]}</loc>`) - 10);
  const bytes = new TextEncoder().encode(xml);
  async function* chunks() {
    yield bytes.subarray(0, cut);
    yield bytes.subarray(cut);
  }
  const opened: OpenedSitemap = {
    url: URL_,
    status: 200,
    contentType: 'application/xml',
    contentEncoding: null,
    gzipped: false,
    bytes: chunks(),
    declaredBytes: bytes.length,
    wireBytes: () => bytes.length,
    etag: null,
    lastModified: null,
  };
  return opened;
};

async function eventSizes(handOutEachStep: boolean): Promise<{ sizes: number[]; items: string[] }> {
  const reader = readSitemap({ url: URL_, depth: 0, parent: null }, resolveWalkOptions({}), {
    skip: 0,
    batchSize: 250,
    handOutEachStep,
    createMapper: createUrlMapper,
    open: twoChunks,
  });
  const sizes: number[] = [];
  const items: string[] = [];
  for await (const event of reader) {
    if (event.type !== 'items') continue;
    sizes.push(event.items.length);
    items.push(...event.items);
  }
  return { sizes, items };
}

describe('readSitemap cutting items into events', () => {
  it('hands out what a parser step left under batchSize at the step end when asked (the walk), else holds it (job shards)', async () => {
    const walk = await eventSizes(true);
    expect(walk.sizes).toEqual([250, 50, 250, 50]);
    expect(walk.items).toEqual(locs);
    const shards = await eventSizes(false);
    expect(shards.sizes).toEqual([250, 250, 100]);
    expect(shards.items).toEqual(locs);
  });
});
