// The discover handler called directly with web Requests, over a private Redis: start, continue, status, shards, stop.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSite, type DemoSite } from '../../../lib/demo/demo-site.js';
import type { JobStatus } from '../../../lib/core/types.js';
import { testDeployment, type TestDeployment } from '../../../lib/service/__tests__/test-deployment.js';
import { startTestRedis, type TestRedis } from '../../../test/helpers/redis-server.js';
import {
  demoGroundTruth,
  expectError,
  expectExactlyOnce,
  expectStatus,
  getRequest,
  postRequest,
  ShardBodySchema,
} from '../../../lib/service/__tests__/http-fixtures.js';
import * as discoverRoute from '../discover.js';

const PATH = '/api/factory/discover';
// Small budgets force many slices, so continuing a job is exercised, not just starting one.
const BUDGET_MS = 250;

describe('the discover handler over Redis', () => {
  let redis: TestRedis;
  let site: DemoSite;
  let truth: Set<string>;
  let deployment: TestDeployment;
  let discover: ReturnType<typeof discoverRoute.routes>;

  beforeAll(async () => {
    [redis, site] = await Promise.all([startTestRedis(), startDemoSite({ scale: 0.03 })]);
    deployment = testDeployment({ REDIS_URL: redis.url, FACTORY_ALLOW_HOSTS: `127.0.0.1:${site.port}` });
    discover = discoverRoute.routes(deployment.source);
    truth = await demoGroundTruth(site);
  });
  afterAll(async () => {
    await deployment?.release();
    await Promise.all([redis?.stop(), site?.close()]);
  });

  async function readShards(status: JobStatus): Promise<string[]> {
    const urls: string[] = [];
    for (let shard = 0; shard < status.shardsWritten; shard += 1) {
      const response = await discover.GET(getRequest(PATH, { jobId: status.jobId, shard }));
      expect(response.status).toBe(200);
      const body = ShardBodySchema.parse(await response.json());
      expect({ jobId: body.jobId, shard: body.shard }).toEqual({ jobId: status.jobId, shard });
      urls.push(...body.urls);
    }
    return urls;
  }

  it('starts a job (201), continues it (200) until done, and its shards hold every URL of the site once', async () => {
    const started = await expectStatus(await discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, budgetMs: 50 })), 201);
    expect(started.jobId).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // At least one continue even if a slice got through everything (a continue on a done job answers done).
    let status = started;
    let calls = 1;
    do {
      status = await expectStatus(await discover.POST(postRequest(PATH, { jobId: started.jobId, budgetMs: BUDGET_MS })), 200);
      calls += 1;
    } while (status.state === 'running' && calls < 200);
    expect({ state: status.state, done: status.done, urlsFound: status.urlsFound }).toEqual({ state: 'done', done: true, urlsFound: truth.size });
    expect(status.errors.map((error) => error.kind)).toEqual(site.expectation.all.failures.map((failure) => failure.kind));
    expect(await expectStatus(await discover.GET(getRequest(PATH, { jobId: started.jobId })), 200)).toEqual(status);
    expectExactlyOnce(await readShards(status), truth);
  });

  it('starts one job per Idempotency-Key: a repeated start (200) and two at once find it; the key for another root is 409', async () => {
    const key = { 'idempotency-key': `start-${Math.random().toString(36).slice(2)}` };
    const first = await expectStatus(await discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, budgetMs: 50 }, key)), 201);
    const again = await expectStatus(await discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, budgetMs: 50 }, key)), 200);
    expect(again.jobId).toBe(first.jobId);
    const racing = { 'idempotency-key': `race-${Math.random().toString(36).slice(2)}` };
    const both = await Promise.all([0, 1].map(() => discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, budgetMs: 50 }, racing))));
    for (const response of both) expect([200, 201]).toContain(response.status);
    const [one, other] = await Promise.all(both.map((response) => response.json() as Promise<JobStatus>));
    expect(one?.jobId).toBe(other?.jobId);
    const elsewhere = await expectError(await discover.POST(postRequest(PATH, { rootUrl: `${site.rootUrl}other/`, budgetMs: 50 }, key)), 409, 'conflict');
    expect(elsewhere.error.message).toContain('use a new key');
    await expectError(await discover.POST(postRequest(PATH, { rootUrl: site.rootUrl }, { 'idempotency-key': 'x'.repeat(300) })), 400, 'bad_request');
  });

  it('lists the jobs the store holds, a page at a time, with their status; paging flags are refused beside jobId', async () => {
    const made = await Promise.all([0, 1, 2].map(() => discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, budgetMs: 50 }))));
    const ids = await Promise.all(made.map(async (response) => ((await response.json()) as JobStatus).jobId));
    const listed = new Map<string, JobStatus>();
    let cursor: string | null = '0';
    for (let page = 0; cursor !== null && page < 100; page += 1) {
      const response = await discover.GET(getRequest(PATH, { cursor, limit: 2 }));
      expect(response.status).toBe(200);
      const body = (await response.json()) as { jobs: JobStatus[]; next: string | null };
      for (const job of body.jobs) listed.set(job.jobId, job);
      cursor = body.next;
    }
    expect(cursor).toBeNull();
    for (const jobId of ids) expect(listed.get(jobId)).toMatchObject({ jobId, done: expect.any(Boolean) });
    await expectError(await discover.GET(getRequest(PATH, { jobId: ids[0] ?? '', limit: 2 })), 400, 'bad_request');
    await expectError(await discover.GET(getRequest(PATH, { shard: 0 })), 400, 'bad_request');
    await expectError(await discover.GET(getRequest(PATH, { limit: 500 })), 400, 'bad_request');
  });

  it('starts a re-sync from a previous job (previousJobId): done, only URLs of the site, and 404 for an unknown previous job', async () => {
    const run = async (body: Record<string, unknown>) => {
      let status = await expectStatus(await discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, budgetMs: 5_000, ...body })), 201);
      for (let calls = 0; status.state === 'running' && calls < 200; calls += 1)
        status = await expectStatus(await discover.POST(postRequest(PATH, { jobId: status.jobId, budgetMs: 5_000 })), 200);
      return status;
    };
    const first = await run({});
    const again = await run({ previousJobId: first.jobId });
    expect(again.state).toBe('done');
    for (const url of await readShards(again)) expect(truth.has(url)).toBe(true);
    await expectError(await discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, previousJobId: 'AAAAAAAAAAAAAAAAAAAAAA' })), 404, 'not_found');
  });

  it('answers 404 not_found for the shard just past the end, and for a shard of an unknown job', async () => {
    const status = await expectStatus(await discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, budgetMs: 2_000 })), 201);
    await expectError(await discover.GET(getRequest(PATH, { jobId: status.jobId, shard: status.shardsWritten })), 404, 'not_found');
    await expectError(await discover.GET(getRequest(PATH, { jobId: 'A'.repeat(22), shard: 0 })), 404, 'not_found');
  });

  // `done` means "no more work will happen": true for stopped, failed and done alike.
  it('stops a running job: 200 with state stopped; status and a later continue both say stopped', async () => {
    const started = await expectStatus(await discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, budgetMs: 50 })), 201);
    expect(started.state).toBe('running');
    const stopped = await expectStatus(await discover.POST(postRequest(PATH, { jobId: started.jobId, action: 'stop' })), 200);
    expect({ jobId: stopped.jobId, state: stopped.state, done: stopped.done }).toEqual({ jobId: started.jobId, state: 'stopped', done: true });
    expect((await expectStatus(await discover.GET(getRequest(PATH, { jobId: started.jobId })), 200)).state).toBe('stopped');
    const after = await expectStatus(await discover.POST(postRequest(PATH, { jobId: started.jobId, budgetMs: BUDGET_MS })), 200);
    expect({ state: after.state, urlsFound: after.urlsFound }).toEqual({ state: 'stopped', urlsFound: stopped.urlsFound });
  });

  it('gives a continue without budgetMs the default slice budget (the job finishes in one call)', async () => {
    const started = await expectStatus(await discover.POST(postRequest(PATH, { rootUrl: site.rootUrl, budgetMs: 50 })), 201);
    const status = await expectStatus(await discover.POST(postRequest(PATH, { jobId: started.jobId })), 200);
    expect({ state: status.state, urlsFound: status.urlsFound }).toEqual({ state: 'done', urlsFound: truth.size });
  });
});
