import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { loadCorpusSites, serveCorpusSite, type CorpusSite } from '../../../test/helpers/corpus-server.js';
import { startDemoSite, type DemoSite } from '../../demo/demo-site.js';
import type { LoopbackServer } from '../../demo/loopback-server.js';
import type { JobStore } from '../../store/job-store.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { connectRedisJobStore } from '../../store/open-job-store.js';
import { createJob, readJobShardEntries, runSlice } from '../jobs/index.js';
import { resolveWalkOptions, type WalkOptionsInput } from '../limits.js';
import { createUrlMapper, walkUrlEvents, type WalkEvent } from '../sitemap.js';
import { indexOf, startSite, urlsetOf } from '../jobs/__tests__/small-sites.js';
import { SitemapWalk } from '../walk/walker.js';

/**
 * What one run found: page URLs (sorted, duplicates kept), the sitemaps that gave URLs, error kinds, failure, and
 * `repeats`: sitemaps met again and not read (duplicate children plus cycles; which of the two depends on timing).
 */
interface Outcome {
  urls: string[];
  sources: string[];
  kinds: string[];
  failed: boolean;
  repeats: number;
}

type Start = { rootUrl: string } | { sitemapUrls: string[] };
const LOOPBACK: WalkOptionsInput = { net: { allowPrivate: true } };

async function drain(events: AsyncGenerator<WalkEvent<string>>): Promise<Outcome> {
  const outcome: Outcome = { urls: [], sources: [], kinds: [], failed: false, repeats: 0 };
  try {
    for await (const event of events) {
      if (event.type === 'batch') outcome.urls.push(...event.items);
      else if (event.type === 'sitemap' && event.entries > 0) outcome.sources.push(event.url);
      else if (event.type === 'error') outcome.kinds.push(event.kind);
      if (event.type === 'sitemap') outcome.repeats += event.duplicates;
      if (event.type === 'cycle') outcome.repeats += 1;
    }
  } catch (error) {
    outcome.failed = true;
    outcome.kinds.push((error as { kind?: string }).kind ?? 'thrown');
  }
  return sorted(outcome);
}

function sorted(outcome: Outcome): Outcome {
  return { ...outcome, urls: outcome.urls.sort(), sources: [...new Set(outcome.sources)].sort(), kinds: outcome.kinds.sort() };
}

/** The CLI and library path: `walk` from a site root, or a walk of the given root sitemaps. */
function viaWalk(start: Start, options: WalkOptionsInput): Promise<Outcome> {
  if ('rootUrl' in start) return drain(walkUrlEvents(start.rootUrl, { ...LOOPBACK, ...options }));
  const walk = new SitemapWalk(resolveWalkOptions({ ...LOOPBACK, ...options }), { roots: start.sitemapUrls }, { createMapper: createUrlMapper });
  return drain(walk.events());
}

/** The job path: short slices, the first one abandoned mid-way through its signal (a kill), then slices to the end. */
async function viaJob(store: JobStore, start: Start, options: WalkOptionsInput): Promise<Outcome> {
  const { jobId } = await createJob(store, { ...start, options: { ...LOOPBACK, ...options } });
  const slice = { net: { allowPrivate: true }, budgetMs: 150, leaseMs: 2_000, idlePollMs: 20, idleWaitMs: 300 };
  const kill = new AbortController();
  const timer = setTimeout(() => kill.abort(new Error('killed')), 60);
  let status = await runSlice(store, jobId, { ...slice, signal: kill.signal });
  clearTimeout(timer);
  for (let slices = 0; status.state === 'running' && slices < 200; slices += 1) status = await runSlice(store, jobId, slice);
  const repeats = status.duplicates + status.cycleCount;
  const outcome: Outcome = { urls: [], sources: [], kinds: status.errors.map((error) => error.kind), failed: status.state === 'failed', repeats };
  for (let n = 0; n < status.shardsWritten; n += 1) {
    const shard = await readJobShardEntries(store, jobId, n);
    for (const entry of shard?.entries ?? []) {
      outcome.urls.push(entry.url);
      outcome.sources.push(entry.source);
    }
  }
  expect(status.state).not.toBe('running');
  return sorted(outcome);
}

let redis: TestRedis;
const stores: Array<[string, JobStore]> = [];
const servers: LoopbackServer[] = [];

beforeAll(async () => {
  redis = await startTestRedis();
  stores.push(['memory', new MemoryJobStore()], ['redis', await connectRedisJobStore(redis.url)]);
});

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  await Promise.all(stores.map(([, store]) => store.close()));
  await redis?.stop();
});

/** Runs `start` through the walk and through a job on every store, and expects the same outcome from each. */
async function expectOneEngine(start: Start, options: WalkOptionsInput = {}): Promise<Outcome> {
  const walked = await viaWalk(start, options);
  for (const [name, store] of stores) {
    const jobbed = await viaJob(store, start, options);
    expect({ store: name, ...jobbed }).toEqual({ store: name, ...walked });
  }
  return walked;
}

async function site(routes: Parameters<typeof startSite>[0]): Promise<LoopbackServer> {
  const server = await startSite(routes);
  servers.push(server);
  return server;
}

const robots = (origin: string, paths: string[]) => ({ body: paths.map((path) => `Sitemap: ${origin}${path}`).join('\n') });

describe('one engine: the walk and a job (memory, redis, killed between slices) agree', () => {
  it('on the demo site', async () => {
    const demo: DemoSite = await startDemoSite({ scale: 0.05 });
    servers.push(demo);
    const outcome = await expectOneEngine({ rootUrl: demo.rootUrl });
    expect(outcome.urls.length).toBeGreaterThan(0);
  });

  it('when robots.txt lists only a dead sitemap while /sitemap.xml answers (both fall back)', async () => {
    const server = await site((origin) => ({ '/robots.txt': robots(origin, ['/dead.xml']), '/sitemap.xml': { body: urlsetOf(origin, 'p', 30) } }));
    const outcome = await expectOneEngine({ rootUrl: `${server.origin}/` });
    expect(outcome).toMatchObject({ failed: false, kinds: ['http_status'] });
    expect(outcome.urls).toHaveLength(30);
  });

  it('when robots.txt lists a dead sitemap and no well-known path answers (both fail)', async () => {
    const server = await site((origin) => ({ '/robots.txt': robots(origin, ['/dead.xml']) }));
    expect(await expectOneEngine({ rootUrl: `${server.origin}/` })).toMatchObject({ failed: true, urls: [] });
  });

  it('on a cycle through URL variants (case, default port, fragment)', async () => {
    const server = await site((origin) => {
      const variant = origin.replace('http://127.0.0.1', 'HTTP://127.0.0.1');
      return {
        '/a.xml': { body: indexOf(origin, ['/b.xml']) },
        '/b.xml': { body: `<?xml version="1.0"?><sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><sitemap><loc>${variant}/a.xml#top</loc></sitemap><sitemap><loc>${origin}/p.xml</loc></sitemap></sitemapindex>` },
        '/p.xml': { body: urlsetOf(origin, 'p', 5) },
      };
    });
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/a.xml')] });
    expect(outcome.urls).toHaveLength(5);
    // b.xml lists a variant of its ancestor a.xml: counted as a duplicate, not read again.
    expect(outcome.repeats).toBe(1);
  });

  it('on a child that redirects into a sitemap already read (read once, reported as a cycle by the walk)', async () => {
    const server = await site((origin) => ({
      '/index.xml': { body: indexOf(origin, ['/a.xml', '/r.xml']) },
      '/r.xml': { status: 301, headers: { location: `${origin}/a.xml` }, body: '' },
      '/a.xml': { body: urlsetOf(origin, 'a', 5) },
    }));
    expect((await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] }, { concurrency: 1 })).urls).toHaveLength(5);
    const cycles = [];
    for await (const event of walkUrlEvents(server.url('/index.xml'), { ...LOOPBACK, concurrency: 1 })) if (event.type === 'cycle') cycles.push(event);
    expect(cycles).toEqual([{ type: 'cycle', url: server.url('/r.xml'), target: server.url('/a.xml'), parent: server.url('/index.xml'), depth: 1 }]);
  });

  it('on an empty index, a failing child and a limit hit mid-index', async () => {
    const children = Array.from({ length: 6 }, (_, i) => `/c${i}.xml`);
    const server = await site((origin) => ({
      '/empty.xml': { body: indexOf(origin, []) },
      '/index.xml': { body: indexOf(origin, [...children, '/gone.xml', '/empty.xml']) },
      ...Object.fromEntries(children.map((path, i) => [path, { body: urlsetOf(origin, `c${i}`, 3) }])),
    }));
    await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] });
    const limited = await expectOneEngine({ sitemapUrls: [server.url('/index.xml')] }, { maxSitemaps: 4, concurrency: 1 });
    expect(limited.kinds).toContain('too_many_children');
  });

  it('on a failing root next to a good one, and on a sitemap longer than a slice', async () => {
    const server = await site((origin) => ({ '/big.xml': { body: urlsetOf(origin, 'big', 12_000), chunkDelayMs: 0 } }));
    const outcome = await expectOneEngine({ sitemapUrls: [server.url('/big.xml'), server.url('/missing.xml')] });
    expect(outcome).toMatchObject({ failed: false, kinds: ['http_status'] });
    expect(outcome.urls).toHaveLength(12_000);
  });
});

const corpus = await loadCorpusSites();

describe.skipIf(corpus === null)('one engine on every site of ../shared/corpus', () => {
  it.each((corpus ?? []).map((entry): [string, CorpusSite] => [entry.id, entry]))('%s', async (_id, entry) => {
    const server = await serveCorpusSite(entry);
    servers.push(server);
    await expectOneEngine({ sitemapUrls: entry.roots.map((path) => server.url(`/${path}`)) });
  }, 60_000); // the 63,403-URL gz index runs three times
});
