import { afterAll, beforeAll, expect } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import type { LoopbackServer } from '../../demo/loopback-server.js';
import type { JobStore } from '../../store/job-store.js';
import { MemoryJobStore } from '../../store/memory-job-store.js';
import { connectRedisJobStore } from '../../store/open-job-store.js';
import { createJob, readJobShardEntries, runSlice } from '../jobs/index.js';
import { resolveWalkOptions, type WalkOptionsInput } from '../../core/limits.js';
import { createEntryMapper, createUrlMapper, walkEvents, type WalkEvent } from '../sitemap.js';
import type { SitemapEntry } from '../../core/types.js';
import type { ItemMapper } from '../walk/sitemap-reader.js';
import { startSite } from '../jobs/__tests__/small-sites.js';
import { SitemapWalk } from '../walk/walker.js';

/**
 * What one run found: page URLs (sorted, duplicates kept), the sitemaps that gave URLs, error kinds, failure, and
 * `repeats`: sitemaps met again and not read (duplicate children plus cycles; which of the two depends on timing).
 */
export interface Outcome {
  urls: string[];
  sources: string[];
  kinds: string[];
  /** The caller's limit that stopped the run, as it was said (a `limit` event, a job's `limitReached`), or null. */
  limit: string | null;
  failed: boolean;
  repeats: number;
}

export type Start = { rootUrl: string } | { sitemapUrls: string[] };
export const LOOPBACK: WalkOptionsInput = { net: { allowPrivate: true } };

async function drain(events: AsyncGenerator<WalkEvent<string>>): Promise<Outcome> {
  const outcome: Outcome = { urls: [], sources: [], kinds: [], limit: null, failed: false, repeats: 0 };
  try {
    for await (const event of events) {
      if (event.type === 'batch') outcome.urls.push(...event.items);
      else if (event.type === 'error') outcome.kinds.push(event.kind);
      else if (event.type === 'limit') outcome.limit = event.message;
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
async function viaWalk(start: Start, options: WalkOptionsInput): Promise<Outcome> {
  const walked = await drain(walkOf(start, options, createUrlMapper));
  return { ...walked, sources: await sourcesOf(walkOf(start, options, createEntryMapper)) };
}

function walkOf<T>(start: Start, options: WalkOptionsInput, createMapper: () => ItemMapper<T>): AsyncGenerator<WalkEvent<T>> {
  if ('rootUrl' in start) return walkEvents(start.rootUrl, { ...LOOPBACK, ...options }, () => createMapper);
  return new SitemapWalk(resolveWalkOptions({ ...LOOPBACK, ...options }), { roots: start.sitemapUrls }, { createMapper }).events();
}

/** The sitemaps the walk's entries came from, failed ones included (what they yielded before failing is kept). */
async function sourcesOf(events: AsyncGenerator<WalkEvent<SitemapEntry>>): Promise<string[]> {
  const sources = new Set<string>();
  try {
    for await (const event of events) if (event.type === 'batch') for (const entry of event.items) sources.add(entry.source);
  } catch {
    // The failure itself is the URL walk's to record.
  }
  return [...sources].sort();
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
  const kinds = status.errors.map((error) => error.kind);
  const outcome: Outcome = { urls: [], sources: [], kinds, limit: status.limitReached, failed: status.state === 'failed', repeats };
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

/**
 * Registers a file's Redis server and stores (memory and Redis) and returns what its tests run through: every
 * server made with `site` (or passed to `keep`) is closed after the file.
 */
export function useOneEngine() {
  let redis: TestRedis | undefined;
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

  /** A loopback site closed after the file. */
  async function site(routes: Parameters<typeof startSite>[0]): Promise<LoopbackServer> {
    const server = await startSite(routes);
    servers.push(server);
    return server;
  }

  return { expectOneEngine, site, keep: (server: LoopbackServer) => servers.push(server) };
}

/** A robots.txt listing `paths` of `origin`. */
export const robots = (origin: string, paths: string[]) => ({ body: paths.map((path) => `Sitemap: ${origin}${path}`).join('\n') });
