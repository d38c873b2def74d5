// A job's shard entries (hence inventory rows) follow the walk's rule: one per page key in a sitemap, written
// normalised, with the first entry's fields.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, startLoopbackServer, type LoopbackServer } from '../../demo/loopback-server.js';
import { resolveWalkOptions } from '../../core/limits.js';
import { readSitemapShardEntries } from '../sitemap.js';
import type { ShardEntry } from '../../core/types.js';
import { urlsetXml } from '../../../test/helpers/sitemap-xml.js';

let site: LoopbackServer;
beforeAll(async () => {
  let routes = {};
  site = await startLoopbackServer((request, response) => routeTable(routes)(request, response));
  const upper = site.origin.replace('http://', 'HTTP://');
  const locs = [
    `${site.origin}/dup`,
    `${site.origin}/dup`,
    `${site.origin}/dup`,
    `${upper}/dup`,
    `${site.origin}/dup#frag`,
    `${upper}/other#top`,
    `${site.origin}/other`,
  ];
  routes = { '/dup.xml': { body: urlsetXml(locs, (_loc, index) => `<lastmod>2024-01-0${index + 1}</lastmod>`) } };
});
afterAll(async () => site.close());

describe('readSitemapShardEntries', () => {
  it('gives one entry per normalised URL, the first spelling normalised', async () => {
    const options = resolveWalkOptions({ net: { allowPrivate: true } });
    const reader = readSitemapShardEntries({ url: site.url('/dup.xml'), depth: 0, parent: null }, options, { skip: 0, batchSize: 1000, previous: null });
    const entries: ShardEntry[] = [];
    let step = await reader.next();
    for (; !step.done; step = await reader.next()) if (step.value.type === 'items') entries.push(...step.value.items);
    expect(entries.map(({ url, lastmod }) => [url, lastmod])).toEqual([
      [`${site.origin}/dup`, '2024-01-01'],
      [`${site.origin}/other`, '2024-01-06'],
    ]);
    expect(step.value.items).toBe(2);
  });
});
