// The QStash path, without the network: the local stand-in for QStash's publish API (test/helpers/qstash-stand-in.ts)
// takes the slices the deployment publishes and calls them back, signed with test keys. A sync advanced only by those
// calls ends `done` with exact rows, though one delivery is duplicated (it runs nothing) and one is dropped (the cron
// tick re-drives the sync); unsigned or badly signed calls are 401; a slice QStash gives up on ends its sync `failed`.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { signQStash, startQStashStandIn, type QStashStandIn, type StandInMessage } from '../../../test/helpers/qstash-stand-in.js';
import { startSitesApi, type SitesApi } from './sites-api-fixture.js';

const TOKEN = 'qstash-api-token';
const REDIS_URL = 'redis://127.0.0.1:6379';
const CRON_SECRET = 'qstash-cron-secret';
// 8 child sitemaps of 10 URLs, read one at a time, one per 100 ms slice: a sync of about 9 slices.
const PAGES = 80;

const SyncSchema = z.object({
  syncId: z.string(),
  state: z.string(),
  new: z.number(),
  seen: z.number(),
  removed: z.number(),
  message: z.string().nullable(),
  shardsWritten: z.number(),
  shardsApplied: z.number(),
});
const SliceAnswerSchema = z.object({ syncId: z.string(), slice: z.number(), ran: z.boolean(), state: z.string().optional() });
const JobSchema = z.object({ jobId: z.string(), state: z.string(), urlsFound: z.number(), shardsWritten: z.number() });
const JobSliceAnswerSchema = z.object({ jobId: z.string(), slice: z.number(), ran: z.boolean(), state: z.string().optional() });

describe('sync slices through QStash', () => {
  let api: SitesApi;
  let qstash: QStashStandIn;
  let db: pg.Client;
  let qstashEnv: Record<string, string>;
  // The job store of the deployment from now on (undefined: this process's memory), QStash configured throughout.
  const useStore = (url: string | undefined) => api.configure({ ...qstashEnv, REDIS_URL: url });

  beforeAll(async () => {
    qstash = await startQStashStandIn();
    api = await startSitesApi({ name: 'inv_qstash', token: TOKEN, pages: PAGES, perSitemap: 10 });
    qstashEnv = {
      QSTASH_TOKEN: qstash.token,
      QSTASH_URL: qstash.url,
      QSTASH_CURRENT_SIGNING_KEY: qstash.keys.currentSigningKey,
      QSTASH_NEXT_SIGNING_KEY: qstash.keys.nextSigningKey,
      FACTORY_PUBLIC_URL: api.server.origin,
      FACTORY_QSTASH_RETRIES: '2',
      FACTORY_QSTASH_HOST_PARALLELISM: '3',
      FACTORY_QUEUED_SLICE_BUDGET_MS: '1000',
      CRON_SECRET,
    };
    await useStore(undefined);
    db = new pg.Client({ connectionString: api.databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await api?.close();
    await qstash?.close();
  });

  const getSync = async (siteId: string, syncId: string) => SyncSchema.parse(await (await api.call(`/api/factory/sites/${siteId}/syncs/${syncId}`)).json());
  const deliver = async (message: StandInMessage) => {
    const delivery = await qstash.deliver(message);
    expect(delivery.statuses).toEqual([200]);
    return SliceAnswerSchema.parse(JSON.parse(delivery.bodies[0] ?? 'null'));
  };
  const startSync = async (siteId: string) => {
    expect((await api.post('/api/factory/sites', { rootUrl: api.site.rootUrl, siteId, options: { concurrency: 1 } })).status).toBe(201);
    const started = await api.post(`/api/factory/sites/${siteId}/sync`, { budgetMs: 1_000 });
    expect(started.status).toBe(201);
    const sync = SyncSchema.parse(await started.json());
    expect(sync.state).toBe('running');
    return sync.syncId;
  };
  // The sync has not moved for longer than the lease (the time column only: counters are read through the API).
  const stall = (syncId: string) => db.query(`UPDATE syncs SET updated_at = now() - interval '10 minutes' WHERE sync_id = $1`, [syncId]);
  const cronTick = async () => {
    const response = await fetch(`${api.server.origin}/api/factory/cron`, { headers: { authorization: `Bearer ${CRON_SECRET}` } });
    expect(response.status).toBe(200);
    return (await response.json()) as { advanced: Array<{ syncId: string; state: string }> };
  };

  it('ends done with exact rows though one slice is delivered twice and one is dropped', { timeout: 120_000 }, async () => {
    api.site.delayMs = 200;
    const syncId = await startSync('qstash-site');
    let duplicated: StandInMessage | null = null;
    let dropped: StandInMessage | null = null;
    let ran = 0;
    for (let step = 0; step < 60 && (await getSync('qstash-site', syncId)).state === 'running'; step += 1) {
      const [next] = qstash.pending();
      expect(next, 'a running sync has its next slice queued').toBeDefined();
      if (next === undefined) break;
      if (dropped === null && ran === 2) {
        // Lost on the way: nothing drives the sync until the cron tick finds it stalled and runs a slice itself.
        qstash.drop(next);
        dropped = next;
        expect(qstash.pending()).toEqual([]);
        await stall(syncId);
        expect((await cronTick()).advanced.map((one) => one.syncId)).toContain(syncId);
        continue;
      }
      const answer = await deliver(next);
      expect(answer).toMatchObject({ syncId, ran: true });
      ran += 1;
      if (duplicated === null) {
        // QStash delivers at least once: the same message again runs nothing.
        expect(await deliver(next)).toEqual({ syncId, slice: answer.slice, ran: false });
        duplicated = next;
      }
    }
    const sync = await getSync('qstash-site', syncId);
    expect(sync).toMatchObject({ state: 'done', new: PAGES, seen: PAGES, removed: 0 });
    expect(duplicated).not.toBeNull();
    expect(dropped).not.toBeNull();
    // The dropped message arriving late, after the re-drive took its number: it runs nothing either.
    if (dropped !== null) expect(await deliver(dropped)).toMatchObject({ syncId, ran: false });

    const listed = (await (await api.call(`/api/factory/sites/qstash-site/urls?limit=1000`)).json()) as { urls: Array<{ url: string }> };
    expect(listed.urls.map((row) => row.url).sort()).toEqual([...api.site.pages.keys()].sort());

    // One message per (sync, slice), each with its flow-control key per host, retries and failure callback.
    const messages = qstash.messages();
    expect(new Set(messages.map((message) => message.deduplicationId)).size).toBe(messages.length);
    const slices = messages.map((message) => (JSON.parse(message.body) as { slice: number }).slice);
    expect(slices).toEqual([...slices].sort((a, b) => a - b));
    for (const message of messages) {
      expect(message).toMatchObject({
        url: `${api.server.origin}/api/factory/slice`,
        deduplicationId: `sync-${syncId}-slice-${(JSON.parse(message.body) as { slice: number }).slice}`,
        flowControlKey: `host-${new URL(api.site.rootUrl).host.replace(':', '_')}`,
        flowControlValue: 'parallelism=3',
        retries: 2,
        failureCallback: `${api.server.origin}/api/factory/slice-failed`,
      });
    }
    expect(qstash.pending()).toEqual([]);
  });

  it('answers each slice by its deadline (twice its budget) while the site answers slowly, and ends done with every URL', { timeout: 120_000 }, async () => {
    // Each child answers after 300 ms: a slice reads for the first half of its 2 s and applies in the second.
    api.site.delayMs = 300;
    const syncId = await startSync('qstash-window');
    let slowestMs = 0;
    for (let step = 0; step < 60 && (await getSync('qstash-window', syncId)).state === 'running'; step += 1) {
      const [next] = qstash.pending();
      expect(next, 'a running sync has its next slice queued').toBeDefined();
      if (next === undefined) break;
      const started = Date.now();
      expect(await deliver(next)).toMatchObject({ syncId, ran: true });
      slowestMs = Math.max(slowestMs, Date.now() - started);
    }
    expect(slowestMs).toBeLessThan(2 * 1_000 + 1_000);
    const sync = await getSync('qstash-window', syncId);
    expect(sync).toMatchObject({ state: 'done', new: PAGES, seen: PAGES, removed: 0, shardsApplied: sync.shardsWritten });
  });

  it('advances a discover job by signed deliveries alone: every URL once, a repeated delivery runs nothing', { timeout: 120_000 }, async () => {
    api.site.delayMs = 200;
    const started = await api.post('/api/factory/discover', { rootUrl: api.site.rootUrl, options: { concurrency: 1 }, budgetMs: 1_000 });
    expect(started.status).toBe(201);
    const { jobId } = JobSchema.parse(await started.json());
    const getJob = async () => JobSchema.parse(await (await api.call(`/api/factory/discover?jobId=${jobId}`)).json());
    const jobMessages = () => qstash.pending().filter((message) => message.deduplicationId?.startsWith(`job-${jobId}-`));
    let repeated = false;
    for (let step = 0; step < 60 && (await getJob()).state === 'running'; step += 1) {
      const [next] = jobMessages();
      expect(next, 'a running job has its next slice queued').toBeDefined();
      if (next === undefined) break;
      const delivery = await qstash.deliver(next);
      expect(delivery.statuses).toEqual([200]);
      const answer = JobSliceAnswerSchema.parse(JSON.parse(delivery.bodies[0] ?? 'null'));
      expect(answer).toMatchObject({ jobId, ran: true });
      if (!repeated) {
        const again = await qstash.deliver(next);
        expect(JSON.parse(again.bodies[0] ?? 'null')).toEqual({ jobId, slice: answer.slice, ran: false });
        repeated = true;
      }
    }
    const job = await getJob();
    expect(job).toMatchObject({ state: 'done', urlsFound: PAGES });
    const found: string[] = [];
    for (let shard = 0; shard < job.shardsWritten; shard += 1) {
      const body = z.object({ urls: z.array(z.string()) }).parse(await (await api.call(`/api/factory/discover?jobId=${jobId}&shard=${shard}`)).json());
      found.push(...body.urls);
    }
    expect(found.sort()).toEqual([...api.site.pages.keys()].sort());
    const published = qstash.messages().filter((message) => message.deduplicationId?.startsWith(`job-${jobId}-`));
    expect(published.length).toBeGreaterThan(1);
    for (const message of published) {
      expect(message).toMatchObject({
        url: `${api.server.origin}/api/factory/slice`,
        deduplicationId: `job-${jobId}-slice-${(JSON.parse(message.body) as { slice: number }).slice}`,
        flowControlKey: `host-${new URL(api.site.rootUrl).host.replace(':', '_')}`,
      });
    }
    expect(jobMessages()).toEqual([]);
  });

  it('refuses an unsigned or badly signed call with 401 and a JSON error, and takes the next signing key', async () => {
    const url = `${api.server.origin}/api/factory/slice`;
    const body = JSON.stringify({ syncId: 'A'.repeat(22), slice: 1 });
    const call = (target: string, signature: string | null, sent = body) =>
      fetch(target, {
        method: 'POST',
        body: sent,
        headers: { 'content-type': 'application/json', ...(signature === null ? {} : { 'upstash-signature': signature }) },
      });
    for (const response of [
      await call(url, null),
      await call(url, signQStash('not-the-key', url, body)),
      await call(url, signQStash(qstash.keys.currentSigningKey, url, body), JSON.stringify({ syncId: 'B'.repeat(22), slice: 1 })),
      await call(`${api.server.origin}/api/factory/slice-failed`, null),
    ]) {
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { kind: 'unauthorized' } });
    }
    // Rotation: a call signed with the next key is QStash's too. An unknown sync runs nothing.
    const rotated = await call(url, signQStash(qstash.keys.nextSigningKey, url, body));
    expect(rotated.status).toBe(200);
    expect(await rotated.json()).toEqual({ syncId: 'A'.repeat(22), slice: 1, ran: false });
  });

  it('stops a discover job, keeping what it found, when QStash gives up on its slice', { timeout: 60_000 }, async () => {
    api.site.delayMs = 200;
    // A job outlives a store outage only in a shared store: this test's jobs live in the real Redis.
    const useRedis = useStore;
    await useRedis(REDIS_URL);
    try {
      const started = await api.post('/api/factory/discover', { rootUrl: api.site.rootUrl, options: { concurrency: 1 }, budgetMs: 1_000 });
      expect(started.status).toBe(201);
      const { jobId, urlsFound } = JobSchema.parse(await started.json());
      expect(urlsFound).toBeGreaterThan(0);
      const next = qstash.pending().find((message) => message.deduplicationId?.startsWith(`job-${jobId}-`));
      if (next === undefined) throw new Error('no job slice queued');
      // The store is down for every try of the slice (503), and back when QStash calls the failure callback.
      await useRedis('redis://127.0.0.1:1');
      const delivery = await qstash.deliver(next, { beforeFailureCallback: () => useRedis(REDIS_URL) });
      expect(delivery.statuses).toEqual([503, 503, 503]);
      expect(delivery.failureCallbackStatus).toBe(200);
      const job = JobSchema.parse(await (await api.call(`/api/factory/discover?jobId=${jobId}`)).json());
      expect(job).toMatchObject({ state: 'stopped', urlsFound });
      expect(qstash.pending().filter((message) => message.deduplicationId?.startsWith(`job-${jobId}-`))).toEqual([]);
      expect((await api.call(`/api/factory/discover?jobId=${jobId}`, { method: 'DELETE' })).status).toBe(200);
    } finally {
      await useRedis(undefined);
    }
  });

  it('ends the sync failed with the reason when QStash gives up on a slice', { timeout: 60_000 }, async () => {
    api.site.delayMs = 200;
    const syncId = await startSync('qstash-failing');
    const [next] = qstash.pending();
    if (next === undefined) throw new Error('no slice queued');
    // The job store goes down: every try of the slice fails (503), and QStash calls the failure callback.
    await useStore('redis://127.0.0.1:1');
    try {
      const delivery = await qstash.deliver(next);
      expect(delivery.statuses).toEqual([503, 503, 503]);
      expect(delivery.failureCallbackStatus).toBe(200);
    } finally {
      await useStore(undefined);
    }
    const sync = await getSync('qstash-failing', syncId);
    expect(sync.state).toBe('failed');
    expect(sync.message).toMatch(/^slice \d+ failed after 2 retries \(QStash gave up\): HTTP 503: store_unavailable: /);
  });
});
