import { describe, expect, it } from 'vitest';
import { useRouteSites } from '../../../../test/helpers/route-site.js';
import { walkUrlEvents, type WalkEvent } from '../../sitemap.js';
import { XML, urlsetXml } from '../../../../test/helpers/sitemap-xml.js';

const open = { net: { allowPrivate: true } };
const serve = useRouteSites();

async function allEvents<T>(events: AsyncIterable<WalkEvent<T>>): Promise<Array<WalkEvent<T>>> {
  const out: Array<WalkEvent<T>> = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('what the walk reports per sitemap', () => {
  it('counts lastmod values that are not W3C datetimes in the sitemap event', async () => {
    const dates = ['2024-01-01', 'soon', '2024-02-30', '2024-03-04T05:06:07Z'];
    const site = await serve((origin) => ({
      '/sitemap.xml': {
        headers: XML,
        body: urlsetXml(
          dates.map((_, i) => `${origin}/p/${i}`),
          (_, i) => `<lastmod>${dates[i]}</lastmod>`,
        ),
      },
    }));
    const events = await allEvents(walkUrlEvents(site.url('/sitemap.xml'), open));
    const read = events.find((event) => event.type === 'sitemap');
    expect(read).toMatchObject({ type: 'sitemap', entries: 4, invalidLastmod: 2 });
  });
});
