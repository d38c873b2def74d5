// An index far past maxChildrenPerIndex (a million children, 60 MB of XML, over the 50 MiB byte cap) is cut at the
// cap: the first children are walked, `too_many_children` is reported once, the rest of the index is never read
// (so it is not a too_large failure), in a walk and in a job alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWideIndexSite, type WideIndexSite } from '../../../../test/sites/wide-index-site.js';
import { createJob, runSlice } from '../../jobs/index.js';
import { walkSitemapEvents } from '../../sitemap.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';

const LOOPBACK = { allowPrivate: true };
const CAP = 20;
let site: WideIndexSite;

beforeAll(async () => {
  site = await startWideIndexSite(1_000_000);
});
afterAll(() => site.server.close());

describe('an index of a million children', () => {
  it('walks the first maxChildrenPerIndex, reports the rest once, and stops reading the index there', async () => {
    const urls: string[] = [];
    const errors: Array<{ kind: string; url: string | null }> = [];
    let indexChildren = -1;
    for await (const event of walkSitemapEvents(site.server.url('/index.xml'), { net: LOOPBACK, maxChildrenPerIndex: CAP })) {
      if (event.type === 'batch') urls.push(...event.items.map((entry) => entry.loc));
      if (event.type === 'error') errors.push({ kind: event.kind, url: event.url });
      if (event.type === 'sitemap' && event.depth === 0) indexChildren = event.children;
    }
    expect(urls).toHaveLength(CAP);
    expect(new Set(urls)).toEqual(new Set(Array.from({ length: CAP }, (_, i) => site.server.url(`/p/${i}`))));
    expect(errors).toEqual([{ kind: 'too_many_children', url: site.server.url('/index.xml') }]);
    // Counted up to the first child past the cap: the index was not read on.
    expect(indexChildren).toBe(CAP + 1);
    expect(site.server.hits('/c/20.xml')).toBe(0);
    // Socket buffers hold a few MB on loopback; reading to the 50 MiB cap would have sent most of the 60 MB.
    expect(site.indexBytesSent()).toBeLessThan(site.indexBytes / 4);
  });

  it('does the same as a job', async () => {
    const store = new MemoryJobStore();
    const { jobId } = await createJob(store, { sitemapUrls: [site.server.url('/index.xml')], options: { net: LOOPBACK, maxChildrenPerIndex: CAP } });
    let status = await runSlice(store, jobId, { budgetMs: 20_000, net: LOOPBACK });
    while (!status.done) status = await runSlice(store, jobId, { budgetMs: 20_000, net: LOOPBACK });
    expect(status).toMatchObject({ state: 'done', urlsFound: CAP, errors: [{ kind: 'too_many_children', url: site.server.url('/index.xml') }] });
  });
});
