// writeEntryJson writes what JSON.stringify writes for every entry a walk yields: rich entries (alternates, images,
// videos, news, a locale) and strings that need escaping, read by the real parser from a loopback server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeTable, startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { walkSitemapEntries } from '../../lib/factory/sitemap.js';
import type { SitemapEntry } from '../../lib/core/types.js';
import { collect } from '../../test/helpers/sitemap-xml.js';
import { JSON_ENTRY_LEAD, NDJSON_URL_LEAD, writeEntryJson } from '../entry-json.js';
import { RowBytes } from '../row-bytes.js';

let site: LoopbackServer;
beforeAll(async () => {
  let routes = {};
  site = await startLoopbackServer((request, response) => routeTable(routes)(request, response));
  const o = site.origin;
  const body = `<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml"
  xmlns:image="http://www.google.com/schemas/sitemap-image/1.1" xmlns:video="http://www.google.com/schemas/sitemap-video/1.1"
  xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">
<url><loc>${o}/de-de/shoes/a?x="1"&amp;y=\u00e9\u2028</loc><lastmod>2024-01-01</lastmod><changefreq>daily</changefreq><priority>0.25</priority>
  <xhtml:link rel="alternate" hreflang="fr" href="${o}/fr/shoes/a"/>
  <image:image><image:loc>${o}/i.png</image:loc><image:title>T\\"t</image:title></image:image>
  <video:video><video:thumbnail_loc>${o}/t.png</video:thumbnail_loc><video:title>V</video:title><video:description>D</video:description></video:video>
  <news:news><news:publication><news:name>N</news:name><news:language>en</news:language></news:publication><news:publication_date>2024-01-01</news:publication_date><news:title>N</news:title></news:news>
</url>
<url><loc>${o}/plain</loc></url>
</urlset>`;
  routes = { '/rich.xml': { body } };
});
afterAll(async () => site.close());

function bytesOf(entry: SitemapEntry, lead: Uint8Array): Buffer {
  const rows = new RowBytes(8);
  writeEntryJson(rows, entry, lead);
  return rows.take();
}

describe('writeEntryJson', () => {
  it('writes exactly JSON.stringify(entry), with the lead in place of the opening brace', async () => {
    const entries = await collect(walkSitemapEntries(site.url('/rich.xml'), { net: { allowPrivate: true } }));
    expect(entries).toHaveLength(2);
    expect(entries[0]?.images).toHaveLength(1);
    expect(entries[0]?.locale).toBe('de-DE');
    for (const entry of entries) {
      expect(bytesOf(entry, JSON_ENTRY_LEAD)).toEqual(Buffer.from(JSON.stringify(entry)));
      expect(bytesOf(entry, NDJSON_URL_LEAD)).toEqual(Buffer.from(JSON.stringify({ type: 'url', ...entry })));
    }
  });
});
