// `job run` on a job that cannot advance stops looping: it says which sitemap and why on stderr and exits 3.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../lib/demo/loopback-server.js';
import { createJob } from '../../lib/factory/jobs/create-job.js';
import { MAX_CLAIMS_WITHOUT_PROGRESS } from '../../lib/factory/jobs/stall-policy.js';
import { urlsetOf } from '../../lib/factory/jobs/__tests__/small-sites.js';
import { claimAndAbandon } from '../../lib/store/__tests__/store-fixtures.js';
import { connectRedisJobStore } from '../../lib/store/open-job-store.js';
import type { RedisJobStore } from '../../lib/store/redis-job-store.js';
import { startTestRedis, type TestRedis } from '../../test/helpers/redis-server.js';
import { runMain } from '../../test/helpers/run-cli.js';

describe('job run on a stalled job', () => {
  let redis: TestRedis;
  let store: RedisJobStore;
  let site: LoopbackServer;
  beforeAll(async () => {
    redis = await startTestRedis();
    store = await connectRedisJobStore(redis.url);
    site = await startLoopbackServer((request) => (request.url === '/ok.xml' ? { body: urlsetOf(site.origin, 'ok', 20) } : null));
  });
  afterAll(async () => {
    await store?.close();
    await site?.close();
    await redis?.stop();
  });

  it(
    'reads what it can, says which sitemap it is stuck on and why, exits 3 instead of looping; --retry-stalled reads it again',
    { timeout: 60_000 },
    async () => {
      const stuck = `${site.origin}/stuck.xml`;
      const { jobId } = await createJob(store, { sitemapUrls: [stuck, `${site.origin}/ok.xml`], options: { net: { allowPrivate: true } } });
      // Workers killed mid-read, again and again, before they committed anything of it.
      await claimAndAbandon(store, jobId, MAX_CLAIMS_WITHOUT_PROGRESS);
      const run = await runMain(['job', 'run', '--resume', jobId, '--store', redis.url, '--allow-private', '--budget', '1000']);
      expect(run.code, run.stderr).toBe(3);
      expect(run.stderr).toContain(`job ${jobId} stalled on ${stuck}: claimed ${MAX_CLAIMS_WITHOUT_PROGRESS} times without progress`);
      const status = JSON.parse(run.stdout) as { state: string; urlsFound: number; stalled: { url: string } | null };
      expect(status).toMatchObject({ state: 'running', urlsFound: 20, stalled: { url: stuck } });
      expect(site.hits('/stuck.xml')).toBe(0);

      // Once the site is fixed (here: it answers 404, reported), a retry reads it and the job ends.
      const retried = await runMain(['job', 'run', '--resume', jobId, '--retry-stalled', '--store', redis.url, '--allow-private', '--budget', '1000']);
      expect(retried.code, retried.stderr).toBe(0);
      expect(JSON.parse(retried.stdout)).toMatchObject({ state: 'done', urlsFound: 20, stalled: null, errors: [{ kind: 'http_status', url: stuck }] });
      expect(site.hits('/stuck.xml')).toBe(1);
    },
  );
});
