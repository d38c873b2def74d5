import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpFaultProxy, type TcpFaultProxy } from '../../../../test/helpers/tcp-fault-proxy.js';
import { startTestRedis, type TestRedis } from '../../../../test/helpers/redis-server.js';
import type { JobStore } from '../../../store/job-store.js';
import type { JobStatus } from '../../../core/types.js';
import { StoreError } from '../../../store/store-errors.js';
import { connectRedisJobStore } from '../../../store/open-job-store.js';
import type { RedisJobStore } from '../../../store/redis-job-store.js';
import { COMMIT_SHARD } from '../../../store/scripts/job-scripts.js';
import { createJob } from '../create-job.js';
import { runSlice } from '../run-slice.js';
import { FaultyStore, KilledError, type KillPlan } from './faulty-store.js';
import { allShardUrls, exactness, LOOPBACK, QUICK, runToEnd, seededRandom } from './job-fixtures.js';
import { startNestedSite, type NestedSite } from './nested-site.js';
import { getJobStatus, retryStalledJob } from '../job-control.js';

let redis: TestRedis;
let store: RedisJobStore;
let site: NestedSite;

beforeAll(async () => {
  redis = await startTestRedis();
  store = await connectRedisJobStore(redis.url);
  site = await startNestedSite({ meanUrls: 850 }); // 3 levels of indexes, 100 urlsets, about 100,000 URLs
});

afterAll(async () => {
  await store?.close();
  await site?.close();
  await redis?.stop();
});

// Mostly 'the nth call, whatever it is'; the rest aim at each step, commits (shard written, reply lost) twice as often.
// A sitemap's last shard (most of this site's sitemaps fit in one) is committed by finishWork, with the next claim.
const OPS: Array<KillPlan['op']> = [undefined, undefined, undefined, undefined, 'commitShard', 'finishWork', 'claim', 'enqueue', 'finishWork', 'release'];
const MODES: Array<KillPlan['mode']> = ['before', 'after', 'after', 'abort'];

/**
 * A random crash: at the nth call (of some op, or of any), before it, after it (reply lost), or as an abort. A small
 * sitemap takes one store call (finishWork commits its shard and claims the next), so `nth` stays small enough for
 * crashes to come every few sitemaps.
 */
function randomPlan(random: (below: number) => number, controller: AbortController): KillPlan {
  const op = OPS[random(OPS.length)];
  return { op, nth: 1 + random(op === undefined ? 3 : 2), mode: MODES[random(MODES.length)] ?? 'after', controller };
}

/** Runs slices that crash or abort at random points until the job is done; counts slices, crashes and aborts. */
async function runWithKills(inner: JobStore, jobId: string, seed: number) {
  const random = seededRandom(seed);
  let [slices, kills, aborts, calm] = [0, 0, 0, 0];
  for (; slices < 400; slices += 1) {
    const status = await getJobStatus(inner, jobId);
    if (status.done) break;
    // Crashes this dense (most slices die before they commit anything) can stall the job on a sitemap: an operator retries it.
    if (status.stalled !== null) await retryStalledJob(inner, jobId);
    const controller = new AbortController();
    const faulty = new FaultyStore(inner, randomPlan(random, controller));
    // Every other slice is also aborted at a random moment (a platform stopping the function).
    const timer = random(2) === 0 ? setTimeout(() => controller.abort(), random(300)) : undefined;
    // Short, varied budgets: slices also end at their deadline mid-sitemap, not only by crashes. A slice that ended
    // before its planned crash doubles the next one's budget, so a slow (loaded) machine still crashes often.
    const budgetMs = (100 + random(300)) * 2 ** Math.min(calm, 3);
    try {
      await runSlice(faulty, jobId, { ...LOOPBACK, budgetMs, signal: controller.signal, ...QUICK, workerId: `w${slices}` });
      if (controller.signal.aborted) aborts += 1;
      calm += 1;
    } catch (error) {
      if (!(error instanceof KilledError)) throw error;
      kills += 1;
      calm = 0;
    } finally {
      clearTimeout(timer);
    }
  }
  return { slices, kills, aborts };
}

describe('a job killed at random points and resumed', () => {
  it('finds every URL of a 3-level nested index exactly once, like an uninterrupted run', async () => {
    const options = { ...LOOPBACK, concurrency: 4 };
    // Crashes land by call count, slices also end by time: a fast machine finishes a job in fewer slices, so jobs are
    // run (each checked exactly) until the crashes and aborts seen are enough to mean something.
    let [jobs, slices, kills, aborts] = [0, 0, 0, 0];
    let status: JobStatus | undefined;
    const killedStart = Date.now();
    while (jobs < 5 && (kills < 10 || kills + aborts < 20)) {
      const killed = await createJob(store, { rootUrl: site.rootUrl, options });
      const run = await runWithKills(store, killed.jobId, 20_240_601 + jobs);
      [jobs, slices, kills, aborts] = [jobs + 1, slices + run.slices, kills + run.kills, aborts + run.aborts];
      status = await getJobStatus(store, killed.jobId);
      expect(exactness(await allShardUrls(store, killed.jobId), site.expected)).toEqual({ missing: 0, unexpected: 0, duplicates: 0 });
      expect(status).toMatchObject({ state: 'done', urlsFound: site.expected.size });
      expect(status.errors).toEqual([{ kind: 'http_status', url: site.failingUrl, message: expect.any(String), status: 500 }]);
    }
    const killedMs = (Date.now() - killedStart) / jobs;

    // The same walk without interruptions, for the overhead figure (it runs warm, so the figure errs high).
    const steady = await createJob(store, { rootUrl: site.rootUrl, options });
    store.resetCommandStats();
    const steadyStart = Date.now();
    const { status: steadyStatus } = await runToEnd(store, steady.jobId, { ...LOOPBACK, budgetMs: 20_000 });
    const steadyMs = Date.now() - steadyStart;
    const commands = store.commandStats().total;
    expect(exactness(await allShardUrls(store, steady.jobId), site.expected)).toEqual({ missing: 0, unexpected: 0, duplicates: 0 });
    expect(status?.sitemapsDone).toBe(steadyStatus.sitemapsDone);
    console.info(
      `[figures] ${site.expected.size} URLs: uninterrupted ${steadyMs} ms, ${steadyStatus.shardsWritten} shards, ` +
        `${commands} commands (${(commands / steadyStatus.shardsWritten).toFixed(2)} per shard); ` +
        `with ${kills} crashes and ${aborts} aborts in ${slices} slices of ${jobs} jobs, ${killedMs.toFixed(0)} ms a job (${(killedMs / steadyMs).toFixed(1)}x)`,
    );
    expect(kills).toBeGreaterThanOrEqual(10);
    expect(kills + aborts).toBeGreaterThanOrEqual(20);
  }, 90_000); // 100,000 URLs twice, plus dozens of crashes: slow on a loaded CI machine
});

describe('a job whose Redis connection resets during shard writes', () => {
  let proxy: TcpFaultProxy;
  let proxied: RedisJobStore;
  let small: NestedSite;

  beforeAll(async () => {
    proxy = await startTcpFaultProxy({ host: '127.0.0.1', port: Number(new URL(redis.url).port) });
    proxied = await connectRedisJobStore(`redis://127.0.0.1:${proxy.port}`);
    small = await startNestedSite({ mids: 2, subs: 3, leaves: 3, meanUrls: 1500 });
  });

  afterAll(async () => {
    await proxied?.close();
    await proxy?.close();
    await small?.close();
  });

  it('still writes every URL exactly once', async () => {
    const job = await createJob(proxied, { rootUrl: small.rootUrl, options: LOOPBACK });
    await getJobStatus(proxied, job.jobId); // scripts cached: commits go out as EVALSHA and are recognisable
    const random = seededRandom(7);
    let planned = 0;
    // One commit in six: its request is cut (before Redis sees it, or part-way through the payload) or its reply lost.
    proxy.setPlan(({ direction, chunk }) => {
      const commit = direction === 'up' ? chunk.includes(COMMIT_SHARD.sha) : chunk.includes('committed');
      if (!commit || planned >= 30 || random(6) !== 0) return 'pass';
      planned += 1;
      return direction === 'up' && random(2) === 0 ? 'forward-then-reset' : 'reset';
    });
    // A slice whose store stays unreachable through all retries fails; the orchestrator just calls again.
    let status = await getJobStatus(proxied, job.jobId);
    for (let slices = 0; !status.done && slices < 50; slices += 1) {
      status = await runSlice(proxied, job.jobId, { ...LOOPBACK, budgetMs: 10_000, ...QUICK }).catch(async (error: unknown) => {
        if (!(error instanceof StoreError)) throw error;
        return getJobStatus(proxied, job.jobId);
      });
    }
    proxy.setPlan(null);
    expect(planned).toBeGreaterThanOrEqual(5);
    expect(exactness(await allShardUrls(proxied, job.jobId), small.expected)).toEqual({ missing: 0, unexpected: 0, duplicates: 0 });
    expect(status.urlsFound).toBe(small.expected.size);
  });
});
