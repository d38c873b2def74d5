// A job's request headers (a session cookie, a token) never sit in clear in Redis: sealed while the job runs, gone
// once it ends; the built bin seals them with the folder's own secret when FACTORY_SECRET_KEY is unset.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoopbackServer, type LoopbackServer } from '../../demo/loopback-server.js';
import { createJob, getJobStatus, runSlice, stopJob } from '../../factory/jobs/index.js';
import { indexOf, urlsetOf } from '../../factory/jobs/__tests__/small-sites.js';
import { SecretBox } from '../../utils/secret-box.js';
import { assertBuildCurrent, BUILT_BIN } from '../../service/__tests__/serve-process.js';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import { jobKeyPrefix } from '../keys.js';
import { connectRedisJobStore } from '../open-job-store.js';
import { newJob } from './store-fixtures.js';

const COOKIE = 'session=s3cr3t-cookie-value-7f3a';
const SECRET = 'a-deployment-secret-of-32-characters-or-more';
const run = promisify(execFile);

let redis: TestRedis;
let site: LoopbackServer;
const cookiesSeen: Array<string | undefined> = [];

beforeAll(async () => {
  redis = await startTestRedis();
  site = await startLoopbackServer((request) => {
    cookiesSeen.push(request.headers.cookie);
    if (request.url === '/sitemap.xml') return { body: indexOf(site.origin, ['/a.xml', '/b.xml']) };
    if (request.url === '/a.xml' || request.url === '/b.xml') return { body: urlsetOf(site.origin, request.url.slice(1, 2), 30) };
    return null;
  });
});
afterAll(async () => {
  await site?.close();
  await redis?.stop();
});

// Every value of every key of the job, as text (strings, hashes, lists, sets), to look for the secret in.
async function jobValues(jobId: string): Promise<string> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    const values: string[] = [];
    for await (const keys of client.scanIterator({ MATCH: `${jobKeyPrefix(jobId)}*`, COUNT: 1000 })) {
      for (const key of keys) {
        const type = await client.type(key);
        if (type === 'string') values.push((await client.get(key)) ?? '');
        if (type === 'hash') values.push(JSON.stringify(await client.hGetAll(key)));
        if (type === 'list') values.push(...(await client.lRange(key, 0, -1)));
        if (type === 'set') values.push(...(await client.sMembers(key)));
      }
    }
    return values.join('\n');
  } finally {
    await client.quit();
  }
}

async function secretsKeyExists(jobId: string): Promise<boolean> {
  const client = createClient({ url: redis.url });
  await client.connect();
  try {
    return (await client.exists(`${jobKeyPrefix(jobId)}secrets`)) === 1;
  } finally {
    await client.quit();
  }
}

const options = { headers: { cookie: COOKIE }, net: { allowPrivate: true } };

describe('request headers in the Redis job store', () => {
  it('are sealed while the job runs, sent with every request, and deleted once it is done', { timeout: 30_000 }, async () => {
    const store = await connectRedisJobStore(redis.url, { secrets: new SecretBox(SECRET) });
    try {
      cookiesSeen.length = 0;
      const { jobId } = await createJob(store, { rootUrl: site.origin, options });
      expect(await jobValues(jobId)).not.toContain('s3cr3t');
      expect(await secretsKeyExists(jobId)).toBe(true);
      expect((await store.getMeta(jobId)).options.headers).toEqual({ cookie: COOKIE });

      let status = await getJobStatus(store, jobId);
      while (status.state === 'running') status = await runSlice(store, jobId, { budgetMs: 5_000, workerId: 'w', net: options.net });
      expect(status).toMatchObject({ state: 'done', urlsFound: 60 });
      // robots.txt, the index and both children: each was asked for with the cookie.
      expect(cookiesSeen.length).toBeGreaterThanOrEqual(4);
      expect(new Set(cookiesSeen)).toEqual(new Set([COOKIE]));
      expect(await secretsKeyExists(jobId)).toBe(false);
      expect((await store.getMeta(jobId)).options.headers).toEqual({});
      expect(await jobValues(jobId)).not.toContain('s3cr3t');
    } finally {
      await store.close();
    }
  });

  it('go when a job is stopped; a retried create is the same job, other headers under its id a conflict', async () => {
    const store = await connectRedisJobStore(redis.url, { secrets: new SecretBox(SECRET) });
    try {
      const job = newJob([`${site.origin}/a.xml`], { headers: { cookie: COOKIE } });
      const { jobId } = job.meta;
      await store.createJob(job);
      await expect(store.createJob(job)).resolves.toBeUndefined(); // a retry after a lost answer
      const other = { ...job, meta: { ...job.meta, options: { ...job.meta.options, headers: { cookie: 'session=another' } } } };
      await expect(store.createJob(other)).rejects.toMatchObject({ kind: 'conflict' });
      expect((await store.getMeta(jobId)).options.headers).toEqual({ cookie: COOKIE });
      await stopJob(store, jobId);
      expect(await secretsKeyExists(jobId)).toBe(false);
    } finally {
      await store.close();
    }
  });

  it('are refused without a secret, and do not open with another one', async () => {
    const bare = await connectRedisJobStore(redis.url);
    const sealed = await connectRedisJobStore(redis.url, { secrets: new SecretBox(SECRET) });
    const other = await connectRedisJobStore(redis.url, { secrets: new SecretBox(`${SECRET}-rotated`) });
    try {
      await expect(createJob(bare, { rootUrl: site.origin, options })).rejects.toMatchObject({
        kind: 'config',
        message: expect.stringContaining('FACTORY_SECRET_KEY') as unknown,
      });
      // Without headers nothing needs sealing.
      await expect(createJob(bare, { rootUrl: site.origin, options: { net: options.net } })).resolves.toMatchObject({ state: 'running' });

      const { jobId } = await createJob(sealed, { rootUrl: site.origin, options });
      await expect(bare.getMeta(jobId)).rejects.toMatchObject({ kind: 'config', message: expect.stringContaining('set FACTORY_SECRET_KEY') as unknown });
      await expect(other.getMeta(jobId)).rejects.toMatchObject({ kind: 'config', message: expect.stringContaining('do not open') as unknown });
      await expect(runSlice(other, jobId, { budgetMs: 2_000, workerId: 'w', net: options.net })).rejects.toMatchObject({ kind: 'config' });
    } finally {
      await Promise.all([bare.close(), sealed.close(), other.close()]);
    }
  });
});

describe('the built bin on a Redis store', () => {
  it('seals -H with the folder secret (mode 0600) when FACTORY_SECRET_KEY is unset', { timeout: 60_000 }, async () => {
    assertBuildCurrent();
    const cwd = await mkdtemp(join(tmpdir(), 'cf-sealed-'));
    try {
      cookiesSeen.length = 0;
      const env = { ...process.env, LOG_LEVEL: 'warn', FACTORY_SECRET_KEY: '' };
      const args = [BUILT_BIN, 'job', 'run', site.origin, '--store', redis.url, '--allow-private', '-H', `Cookie: ${COOKIE}`, '--quiet'];
      const { stdout } = await run(process.execPath, args, { cwd, env });
      const status = JSON.parse(stdout) as { jobId: string; state: string; urlsFound: number };
      expect(status).toMatchObject({ state: 'done', urlsFound: 60 });
      expect(new Set(cookiesSeen)).toEqual(new Set([COOKIE]));
      expect((await stat(join(cwd, '.crawler-factory', 'secret-key'))).mode & 0o777).toBe(0o600);
      expect(await jobValues(status.jobId)).not.toContain('s3cr3t');
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
