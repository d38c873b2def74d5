// A job that cannot advance says so (`stalled`, with the sitemap and why) instead of looping, on every store; a slow
// job that advances, even with its slices killed again and again, never does.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';
import { startLoopbackServer, type LoopbackServer } from '../../../demo/loopback-server.js';
import type { JobStore } from '../../../store/job-store.js';
import { MemoryJobStore } from '../../../store/memory-job-store.js';
import { connectRedisJobStore } from '../../../store/open-job-store.js';
import type { JobStatus } from '../../../core/types.js';
import { createJob } from '../create-job.js';
import { getJobStatus } from '../job-control.js';
import { runSlice } from '../run-slice.js';
import { MAX_CLAIMS_WITHOUT_PROGRESS } from '../stall-policy.js';
import { FaultyStore, KilledError } from './faulty-store.js';
import { allShardUrls, exactness, LOOPBACK, QUICK } from './job-fixtures.js';
import { pagesOf, slowUrlset, startSite, urlsetOf } from './small-sites.js';

const SLOW_URLS = 20_000;
// Leases long enough for a loaded machine: a takeover here must come from a kill, not a late heartbeat.
const SLICE = { ...LOOPBACK, ...QUICK, leaseMs: 1_000, budgetMs: 5_000 };
let redis: TestRedis;
let server: LoopbackServer;
let stuckServer: LoopbackServer;
// Armed by a test: called when the stuck sitemap's request arrives (the slice reading it is then killed).
let onStuckRequest: (() => void) | null = null;
const stores = new Map<string, () => Promise<JobStore>>();

beforeAll(async () => {
  redis = await startTestRedis();
  stores.set('memory', async () => new MemoryJobStore()).set('redis', () => connectRedisJobStore(redis.url));
  server = await startSite((origin) => ({
    '/ok.xml': { body: urlsetOf(origin, 'ok', 50) },
    // 20,000 URLs in 40 chunks 50 ms apart: about 2 s a pass, every pass gets further than the last.
    '/slow.xml': slowUrlset(origin, SLOW_URLS, 40, 50),
  }));
  // A byte every 100 ms: no <url> completes for seconds, so a pass killed before that commits nothing.
  stuckServer = await startLoopbackServer((request) => {
    if (request.url !== '/stuck.xml') return null;
    onStuckRequest?.();
    return slowUrlset(stuckServer.origin, 3, 400, 100);
  });
});

afterAll(async () => {
  await server?.close();
  await stuckServer?.close();
  await redis?.stop();
});

/**
 * One slice killed `killMs` after it starts, or after the stuck sitemap's request: its signal fires, and the process dies
 * before it can give its lease back.
 */
async function killedSlice(store: JobStore, jobId: string, kill: { afterMs: number; onStuck?: boolean }): Promise<void> {
  const controller = new AbortController();
  const killSoon = () => setTimeout(() => controller.abort(new Error('killed')), kill.afterMs);
  const timer = kill.onStuck ? null : killSoon();
  if (kill.onStuck) onStuckRequest = killSoon;
  const faulty = new FaultyStore(store, { op: 'release', nth: 1, mode: 'before' });
  try {
    await runSlice(faulty, jobId, { ...SLICE, signal: controller.signal });
  } catch (error) {
    if (!(error instanceof KilledError)) throw error;
  } finally {
    onStuckRequest = null;
    if (timer) clearTimeout(timer);
  }
}

describe.each(['memory', 'redis'])('a job on the %s store', (name) => {
  let store: JobStore;
  beforeAll(async () => {
    store = await (stores.get(name) as () => Promise<JobStore>)();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('stalls on a sitemap whose every pass is killed before it reads anything, says which and why, and stops looping', async () => {
    const stuck = stuckServer.url('/stuck.xml');
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/ok.xml'), stuck], options: { ...LOOPBACK, concurrency: 1 } });
    let status: JobStatus = await getJobStatus(store, jobId);
    let slices = 0;
    for (; slices < 4 * MAX_CLAIMS_WITHOUT_PROGRESS && status.stalled === null; slices += 1) {
      await killedSlice(store, jobId, { afterMs: 200, onStuck: true });
      await sleep(SLICE.leaseMs + 100); // the killed slice's lease lapses
      status = await getJobStatus(store, jobId);
      expect(status.state).toBe('running');
    }
    expect(slices).toBeGreaterThanOrEqual(MAX_CLAIMS_WITHOUT_PROGRESS);
    expect(status).toMatchObject({ state: 'running', done: false, urlsFound: 50, sitemapsPending: 1 });
    expect(status.stalled).toMatchObject({ url: stuck, claims: MAX_CLAIMS_WITHOUT_PROGRESS, offset: 0, reason: expect.stringContaining('without progress') });
    // Another slice does not read it again: it returns at once with the same answer.
    const hits = stuckServer.hits('/stuck.xml');
    const again = await runSlice(store, jobId, SLICE);
    expect(again.stalled).toMatchObject({ url: stuck });
    expect(stuckServer.hits('/stuck.xml')).toBe(hits);
  });

  it('is never stalled while it advances, even when every slice is killed mid-read before the sitemap ends', async () => {
    const { jobId } = await createJob(store, { sitemapUrls: [server.url('/slow.xml')], options: LOOPBACK });
    let status: JobStatus = await getJobStatus(store, jobId);
    // Each pass re-reads the committed prefix and gets a little further before its kill: more kills than the stall limit.
    for (let slice = 1; status.state === 'running' && slice <= 40; slice += 1) {
      await killedSlice(store, jobId, { afterMs: 300 * slice });
      status = await getJobStatus(store, jobId);
      expect(status.stalled).toBeNull();
      if (slice === MAX_CLAIMS_WITHOUT_PROGRESS + 1) expect(status.state).toBe('running');
    }
    expect(status).toMatchObject({ state: 'done', urlsFound: SLOW_URLS, stalled: null });
    expect(exactness(await allShardUrls(store, jobId), new Set(pagesOf(server.origin, 'slow', SLOW_URLS)))).toEqual({
      missing: 0,
      unexpected: 0,
      duplicates: 0,
    });
  });
});
