import { afterEach, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../../demo/loopback-server.js';
import { walkUrlEvents } from '../../sitemap.js';
import { XML, indexXml, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';

const open = { net: { allowPrivate: true } };
let server: LoopbackServer | null = null;
afterEach(async () => server?.close());

describe('an index of many tiny sitemaps', () => {
  it('reads each of 2,000 one-URL children once and finds every URL', async () => {
    const children = 2_000;
    const site = await startLoopbackServer((request) => {
      const path = request.url ?? '/';
      const origin = site.origin;
      if (path === '/index.xml') return { headers: XML, body: indexXml(Array.from({ length: children }, (_, i) => `${origin}/c/${i}.xml`)) };
      const match = /^\/c\/(\d+)\.xml$/.exec(path);
      return match === null ? null : { headers: XML, body: urlsetXml([`${origin}/p/${match[1]}`]) };
    });
    server = site;
    const urls: string[] = [];
    let sitemapEvents = 0;
    for await (const event of walkUrlEvents(site.url('/index.xml'), open)) {
      if (event.type === 'batch') urls.push(...event.items);
      if (event.type === 'sitemap') sitemapEvents += 1;
      if (event.type === 'error') throw new Error(`unexpected error event: ${event.kind} ${event.message}`);
    }
    expect(new Set(urls).size).toBe(children);
    expect(urls.length).toBe(children);
    expect(sitemapEvents).toBe(children + 1);
    expect(site.totalRequests()).toBe(children + 1);
  });
});
