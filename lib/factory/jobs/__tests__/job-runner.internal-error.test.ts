// A bug while reading one sitemap (anything thrown that is not a FactoryError) is reported as `internal` for that
// sitemap, never dressed as `fetch_failed`, and never retried as if the network had failed; the job goes on.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LoopbackServer } from '../../../demo/loopback-server.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';
import { createJob } from '../create-job.js';
import { LOOPBACK, QUICK, runToEnd } from './job-fixtures.js';
import { startSite, urlsetOf } from './small-sites.js';

// The parser throws a plain TypeError (a bug) for one sitemap; every other sitemap parses as usual.
vi.mock('../../parse/index.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../parse/index.js')>();
  return {
    ...actual,
    createSitemapParser: (...args: Parameters<typeof actual.createSitemapParser>) => {
      const parser = actual.createSitemapParser(...args);
      if (!args[0].sitemapUrl.endsWith('/buggy.xml')) return parser;
      parser.write = () => {
        throw new TypeError("Cannot read properties of undefined (reading 'loc')");
      };
      return parser;
    },
  };
});

let server: LoopbackServer;

beforeAll(async () => {
  server = await startSite((origin) => ({ '/buggy.xml': { body: urlsetOf(origin, 'buggy', 10) }, '/good.xml': { body: urlsetOf(origin, 'good', 10) } }));
});

afterAll(async () => {
  await server?.close();
});

describe('a bug while reading a sitemap in a job', () => {
  it('is reported as internal for that sitemap (read once, not retried) and the job goes on', async () => {
    const store = new MemoryJobStore();
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/buggy.xml'), server.url('/good.xml')], options: { ...LOOPBACK, retries: 2 } });
    const { status } = await runToEnd(store, jobId, { ...LOOPBACK, ...QUICK, budgetMs: 2_000 });
    expect(status).toMatchObject({ state: 'done', urlsFound: 10 });
    expect(status.errors).toEqual([{ kind: 'internal', url: server.url('/buggy.xml'), message: expect.stringContaining('Cannot read properties') }]);
    expect(server.hits('/buggy.xml')).toBe(1);
  });
});
