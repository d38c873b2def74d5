import { describe, expect, it } from 'vitest';
import { newLeaseToken } from '../job-id.js';
import { MAX_CYCLES_KEPT, MAX_ERRORS_KEPT, type JobStore } from '../job-store.js';
import { claimWork, createdJob, entriesOf, newJob, sitemapWork, sleep, urls } from './store-fixtures.js';
import { getJobStatus, stopJob } from '../../factory/jobs/job-control.js';
import { MAX_CLAIMS_WITHOUT_PROGRESS } from '../../factory/jobs/stall-policy.js';

/** Opens a fresh store for one test, and closes it. */
export interface StoreHarness {
  open(): Promise<JobStore>;
}

const A = 'https://example.com/a.xml';
const B = 'https://example.com/b.xml';

/** The behaviour every JobStore adapter must share; called once per adapter. */
export function describeJobStoreContract(name: string, harness: StoreHarness): void {
  const withStore = (test: (store: JobStore) => Promise<void>) => async () => {
    const store = await harness.open();
    try {
      await test(store);
    } finally {
      await store.close();
    }
  };

  describe(`${name} job store contract`, () => {
    it(
      'lists every job it holds, a page at a time, and not a deleted one',
      withStore(async (store) => {
        const made = [];
        for (let i = 0; i < 5; i += 1) made.push(await createdJob(store, [A]));
        const [deleted] = made;
        expect(await store.deleteJob(deleted ?? '')).toBe(true);
        const listed = new Set<string>();
        let cursor: string | null = '0';
        for (let page = 0; cursor !== null && page < 1_000; page += 1) {
          const { jobIds, next }: { jobIds: string[]; next: string | null } = await store.listJobIds(cursor, 2);
          for (const jobId of jobIds) listed.add(jobId);
          cursor = next;
        }
        expect(cursor).toBeNull();
        for (const jobId of made.slice(1)) expect(listed.has(jobId), jobId).toBe(true);
        expect(listed.has(deleted ?? '')).toBe(false);
      }),
    );

    it(
      'creates a running job whose roots are pending',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const status = await getJobStatus(store, jobId);
        expect(status).toMatchObject({ jobId, state: 'running', done: false, urlsFound: 0, shardsWritten: 0, sitemapsPending: 2, errors: [] });
        expect(Date.parse(status.startedAt)).not.toBeNaN();
        expect((await store.getMeta(jobId)).sitemapUrls).toEqual([A, B]);
      }),
    );

    it(
      'keeps unlimited limits unlimited through storage',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A], { maxDepth: 3 });
        const { options } = await store.getMeta(jobId);
        expect(options.maxDepth).toBe(3);
        expect(options.maxUrls).toBe(Number.POSITIVE_INFINITY);
      }),
    );

    it(
      'answers not_found for an unknown job and bad_request for a hostile id',
      withStore(async (store) => {
        await expect(getJobStatus(store, 'AAAAAAAAAAAAAAAAAAAAAA')).rejects.toMatchObject({ kind: 'not_found' });
        await expect(store.getMeta('AAAAAAAAAAAAAAAAAAAAAA')).rejects.toMatchObject({ kind: 'not_found' });
        for (const hostile of ['*', 'job:*', 'a\r\nFLUSHALL', '../../etc', 'x'.repeat(5000), '']) {
          await expect(getJobStatus(store, hostile)).rejects.toMatchObject({ kind: 'bad_request' });
          await expect(store.claim(hostile, { token: 't', leaseMs: 10, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).rejects.toMatchObject({
            kind: 'bad_request',
          });
        }
      }),
    );

    it(
      'treats a retried creation as a no-op and another job under the same id as a conflict',
      withStore(async (store) => {
        const job = newJob([A]);
        await store.createJob(job);
        await store.createJob(job);
        expect((await getJobStatus(store, job.meta.jobId)).sitemapsPending).toBe(1);
        await expect(store.createJob({ ...job, meta: { ...job.meta, sitemapUrls: [B] } })).rejects.toMatchObject({ kind: 'conflict' });
      }),
    );

    it(
      'hands each piece of work to one claimant and says wait while all are leased',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const first = await claimWork(store, jobId);
        const second = await claimWork(store, jobId);
        expect(new Set([first.workId, second.workId]).size).toBe(2);
        expect([first.item, second.item].map((item) => item.type === 'sitemap' && item.ref.url).sort()).toEqual([A, B]);
        expect(await store.claim(jobId, { token: newLeaseToken(), leaseMs: 1000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).toEqual({
          type: 'wait',
          active: 2,
        });
      }),
    );

    it(
      'returns the same work when a claim is retried with its token',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const token = newLeaseToken();
        const first = await store.claim(jobId, { token, leaseMs: 10_000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS });
        const retry = await store.claim(jobId, { token, leaseMs: 10_000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS });
        expect(retry).toEqual(first);
        expect((await claimWork(store, jobId)).workId).not.toBe(first.type === 'claimed' && first.work.workId);
      }),
    );

    it(
      'writes shards numbered from zero and advances the offset with them',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId);
        const first = urls('p', 1000);
        const second = urls('q', 7);
        expect(await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 0, entries: first })).toEqual({
          type: 'committed',
          shard: 0,
          urlsFound: 1000,
        });
        expect(await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 1000, entries: second })).toEqual({
          type: 'committed',
          shard: 1,
          urlsFound: 1007,
        });
        expect(await store.readShard(jobId, 0)).toEqual(first);
        expect(await store.readShard(jobId, 1)).toEqual(second);
        expect(await store.readShard(jobId, 2)).toBeNull();
        expect(await store.readShard(jobId, -1)).toBeNull();
        expect(await getJobStatus(store, jobId)).toMatchObject({ urlsFound: 1007, shardsWritten: 2 });
      }),
    );

    it(
      'reports a retried identical commit as already committed and writes nothing',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId);
        const commit = { workId: work.workId, token: work.token, offset: 0, entries: urls('p', 10) };
        await store.commitShard(jobId, commit);
        expect(await store.commitShard(jobId, commit)).toEqual({ type: 'duplicate', shard: 0 });
        expect(await getJobStatus(store, jobId)).toMatchObject({ urlsFound: 10, shardsWritten: 1 });
      }),
    );

    it(
      'refuses a commit at a stale offset or under another lease',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId);
        await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 0, entries: urls('p', 5) });
        const stale = { workId: work.workId, token: work.token, offset: 3, entries: urls('q', 5) };
        expect(await store.commitShard(jobId, stale)).toEqual({ type: 'offset_mismatch', offset: 5 });
        const foreign = { workId: work.workId, token: newLeaseToken(), offset: 5, entries: urls('q', 5) };
        expect(await store.commitShard(jobId, foreign)).toEqual({ type: 'lease_lost' });
        expect((await getJobStatus(store, jobId)).urlsFound).toBe(5);
      }),
    );

    it(
      'lets another claimant resume expired work at its recorded offset and locks out the old one',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const old = await claimWork(store, jobId, 400);
        await store.commitShard(jobId, { workId: old.workId, token: old.token, offset: 0, entries: urls('p', 3) });
        expect((await store.claim(jobId, { token: newLeaseToken(), leaseMs: 1000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).type).toBe('wait');
        await sleep(450);
        const next = await claimWork(store, jobId);
        expect(next).toMatchObject({ workId: old.workId, offset: 3 });
        const late = { workId: old.workId, token: old.token, offset: 3, entries: urls('late', 3) };
        expect(await store.commitShard(jobId, late)).toEqual({ type: 'lease_lost' });
        expect(await store.finishWork(jobId, { workId: old.workId, token: old.token, errors: [], countSitemap: true, failure: 'none' })).toEqual({
          type: 'lease_lost',
        });
      }),
    );

    it(
      'frees released work at once, but only for the lease holder',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId);
        expect(await store.release(jobId, work.workId, newLeaseToken())).toBe(false);
        expect((await store.claim(jobId, { token: newLeaseToken(), leaseMs: 1000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).type).toBe('wait');
        expect(await store.release(jobId, work.workId, work.token)).toBe(true);
        expect((await claimWork(store, jobId)).workId).toBe(work.workId);
      }),
    );

    it(
      'keeps a renewed lease past its first expiry, renews only for the holder, and not once it lapsed',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId, 600);
        expect(await store.renew(jobId, { workId: work.workId, token: newLeaseToken(), leaseMs: 5_000 })).toBe(false);
        await sleep(300);
        expect(await store.renew(jobId, { workId: work.workId, token: work.token, leaseMs: 600 })).toBe(true);
        await sleep(400);
        expect((await store.claim(jobId, { token: newLeaseToken(), leaseMs: 1000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).type).toBe('wait');
        await sleep(400);
        expect(await store.renew(jobId, { workId: work.workId, token: work.token, leaseMs: 600 })).toBe(false);
        expect((await claimWork(store, jobId)).workId).toBe(work.workId);
      }),
    );

    it(
      'enqueues each sitemap once across calls and refuses more than maxSitemaps',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A], { maxSitemaps: 4 });
        const children = ['c1', 'c2', 'c3'].map((c) => sitemapWork(`https://example.com/${c}.xml`, 1, A));
        expect(await store.enqueue(jobId, { items: [...children.slice(0, 2), sitemapWork(A, 1, A)], roots: false })).toEqual({
          type: 'enqueued',
          added: 2,
          duplicates: 1,
          rejected: 0,
          workAdded: 0,
        });
        expect(await store.enqueue(jobId, { items: children, roots: false })).toEqual({ type: 'enqueued', added: 1, duplicates: 2, rejected: 0, workAdded: 0 });
        expect(await store.enqueue(jobId, { items: [sitemapWork('https://example.com/c4.xml', 1, A)], roots: false })).toEqual({
          type: 'enqueued',
          added: 0,
          duplicates: 0,
          rejected: 1,
          workAdded: 0,
        });
        expect((await getJobStatus(store, jobId)).sitemapsPending).toBe(4);
      }),
    );

    it(
      'counts claims without progress, stops handing out work claimed maxClaims times, and resets on a commit',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const claim = () => store.claim(jobId, { token: newLeaseToken(), leaseMs: 10_000, maxClaims: 2 });
        const first = await claimWork(store, jobId);
        expect(first).toMatchObject({ offset: 0, added: 0, claims: 1 });
        await store.release(jobId, first.workId, first.token);
        const again = await claim();
        expect(again).toMatchObject({ type: 'claimed', work: { workId: first.workId, claims: 2 } });
        if (again.type !== 'claimed') return;
        await store.release(jobId, again.work.workId, again.work.token);
        // The first work is quarantined: the other one is handed out, then nothing but the stalled one is left.
        const other = await claim();
        expect(other).toMatchObject({ type: 'claimed', work: { claims: 1 } });
        if (other.type !== 'claimed') return;
        expect(other.work.workId).not.toBe(first.workId);
        expect(await claim()).toEqual({ type: 'wait', active: 1 });
        await store.finishWork(jobId, { workId: other.work.workId, token: other.work.token, errors: [], countSitemap: true, failure: 'none' });
        expect(await claim()).toEqual({ type: 'stalled', works: 1 });
        expect(await store.readStatus(jobId)).toMatchObject({
          state: 'running',
          pending: 0,
          active: 1,
          leased: 0,
          fewestClaims: 2,
          mostClaimed: { offset: 0, claims: 2, item: { type: 'sitemap' } },
        });
        // A commit (the offset moved) is progress: the work is claimable again, its claims counted afresh.
        const resumed = await claimWork(store, jobId, 10_000);
        expect(resumed).toMatchObject({ workId: first.workId, claims: 3 });
        await store.commitShard(jobId, { workId: resumed.workId, token: resumed.token, offset: 0, entries: urls('p', 3) });
        expect((await store.readStatus(jobId)).fewestClaims).toBe(0);
      }),
    );

    it(
      'reports the job stalled once every piece of work left was claimed without progress too often',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        for (let i = 0; i < MAX_CLAIMS_WITHOUT_PROGRESS; i += 1) {
          expect((await getJobStatus(store, jobId)).stalled).toBeNull();
          // A worker killed mid-read: its lease lapses, nothing was committed.
          await claimWork(store, jobId, 40);
          await sleep(60);
        }
        expect(await store.claim(jobId, { token: newLeaseToken(), leaseMs: 40, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).toEqual({
          type: 'stalled',
          works: 1,
        });
        const status = await getJobStatus(store, jobId);
        expect(status).toMatchObject({ state: 'running', done: false, sitemapsPending: 1 });
        expect(status.stalled).toMatchObject({ url: A, claims: MAX_CLAIMS_WITHOUT_PROGRESS, offset: 0, reason: expect.stringContaining('without progress') });
        // An operator's retry: the work may be claimed again, its claims counted afresh.
        expect(await store.retryStalled(jobId)).toBe(1);
        expect((await getJobStatus(store, jobId)).stalled).toBeNull();
        expect(await claimWork(store, jobId)).toMatchObject({ claims: 1 });
        expect((await stopJob(store, jobId)).stalled).toBeNull();
      }),
    );

    it(
      'does not hold a takeover against work whose old holder comes back late (alive, only slow)',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const slow = await claimWork(store, jobId, 40);
        await sleep(60);
        const next = await claimWork(store, jobId);
        expect(next).toMatchObject({ workId: slow.workId, claims: 2 });
        expect(await store.renew(jobId, { workId: slow.workId, token: slow.token, leaseMs: 1000 })).toBe(false);
        expect((await store.readStatus(jobId)).mostClaimed).toMatchObject({ claims: 0 });
        expect(await store.commitShard(jobId, { workId: slow.workId, token: slow.token, offset: 0, entries: urls('p', 1) })).toEqual({ type: 'lease_lost' });
      }),
    );

    it(
      'counts the children a work queues over its passes, and an addition is its progress',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const index = await claimWork(store, jobId);
        const children = ['c1', 'c2', 'c3'].map((c) => sitemapWork(`https://example.com/${c}.xml`, 1, A));
        expect(await store.enqueue(jobId, { items: children.slice(0, 2), roots: false, workId: index.workId })).toMatchObject({ added: 2, workAdded: 2 });
        await store.release(jobId, index.workId, index.token);
        const pass = await claimWork(store, jobId);
        expect(pass).toMatchObject({ workId: index.workId, added: 2, claims: 1 });
        // A re-read meets its own children again: not added twice, the total kept; a new one resets the claims.
        expect(await store.enqueue(jobId, { items: children, roots: false, workId: index.workId })).toMatchObject({ added: 1, duplicates: 2, workAdded: 3 });
        expect((await store.readStatus(jobId)).mostClaimed).toMatchObject({ claims: 0 });
      }),
    );

    it(
      'records duplicates and a cycle with the finished work, once, keeping at most MAX_CYCLES_KEPT cycles',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const work = await claimWork(store, jobId);
        const finish = {
          workId: work.workId,
          token: work.token,
          errors: [],
          countSitemap: true,
          failure: 'none' as const,
          duplicates: 3,
          cycle: { url: A, target: B },
        };
        await store.finishWork(jobId, finish);
        await store.finishWork(jobId, finish);
        expect(await getJobStatus(store, jobId)).toMatchObject({ duplicates: 3, cycleCount: 1, cycles: [{ url: A, target: B }] });
        const parts = await store.readStatus(jobId);
        expect(parts.cycles).toHaveLength(1);
        expect(MAX_CYCLES_KEPT).toBe(1000);
      }),
    );

    it(
      'records a finished sitemap and its errors once, even when the finish is retried',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const work = await claimWork(store, jobId);
        const error = { kind: 'http_status' as const, url: B, message: '404', parent: A, depth: 1 };
        const finish = { workId: work.workId, token: work.token, errors: [error], countSitemap: true, failure: 'none' as const };
        expect(await store.finishWork(jobId, finish)).toEqual({ type: 'finished', state: 'running' });
        expect(await store.finishWork(jobId, finish)).toEqual({ type: 'already', state: 'running' });
        const status = await getJobStatus(store, jobId);
        expect(status).toMatchObject({ sitemapsDone: 1, sitemapsPending: 1, errors: [{ kind: 'http_status', url: B, message: '404' }] });
      }),
    );

    it(
      'commits a last shard with the finish in one step, once, even when the finish is retried',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const work = await claimWork(store, jobId);
        await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 0, entries: urls('a', 3) });
        const finish = {
          workId: work.workId,
          token: work.token,
          errors: [],
          countSitemap: true,
          failure: 'none' as const,
          shard: { offset: 3, entries: urls('b', 2) },
        };
        expect(await store.finishWork(jobId, finish)).toEqual({ type: 'finished', state: 'running' });
        expect(await store.finishWork(jobId, finish)).toEqual({ type: 'already', state: 'running' });
        expect(await getJobStatus(store, jobId)).toMatchObject({ urlsFound: 5, shardsWritten: 2, sitemapsDone: 1, sitemapsPending: 1 });
        expect((await store.readShard(jobId, 1))?.map((entry) => entry.url)).toEqual(urls('b', 2).map((entry) => entry.url));
      }),
    );

    it(
      'claims the next work with a finish, and hands the same work to a retried finish',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const work = await claimWork(store, jobId);
        const finish = {
          workId: work.workId,
          token: work.token,
          errors: [],
          countSitemap: true,
          failure: 'none' as const,
          claim: { token: newLeaseToken(), leaseMs: 10_000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS },
        };
        const first = await store.finishWork(jobId, finish);
        expect(first).toMatchObject({
          type: 'finished',
          state: 'running',
          next: { type: 'claimed', work: { item: { type: 'sitemap', ref: { url: B } }, offset: 0 } },
        });
        expect(await store.finishWork(jobId, finish)).toEqual({ ...first, type: 'already' });
        expect(await store.claim(jobId, { token: newLeaseToken(), leaseMs: 10_000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).toEqual({
          type: 'wait',
          active: 1,
        });
      }),
    );

    it(
      'finishes many pieces of work in one step, each as finishWork would, and a retried batch changes nothing',
      withStore(async (store) => {
        const C = 'https://example.com/c.xml';
        const jobId = await createdJob(store, [A, B, C, 'https://example.com/d.xml'], { maxUrls: 6 });
        const [a, b, c] = [await claimWork(store, jobId), await claimWork(store, jobId), await claimWork(store, jobId)];
        const done = (work: typeof a) => ({ workId: work.workId, token: work.token, errors: [], countSitemap: true, failure: 'none' as const });
        const nextClaim = { token: newLeaseToken(), leaseMs: 10_000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS };
        const error = { kind: 'http_status' as const, url: B, message: '404', parent: null, depth: 0 };
        const batch = [
          { ...done(a), shard: { offset: 0, entries: urls('a', 4) }, claim: nextClaim },
          // Over maxUrls once A's shard is in (4 + 3 > 6): refused, and nothing of B is finished.
          { ...done(b), shard: { offset: 0, entries: urls('b', 3) } },
          { ...done(c), shard: { offset: 0, entries: urls('c', 1) }, errors: [error] },
          { ...done(a), token: newLeaseToken() },
        ];
        const results = await store.finishMany(jobId, batch);
        expect(results).toEqual([
          {
            type: 'finished',
            state: 'running',
            next: { type: 'claimed', work: expect.objectContaining({ item: sitemapWork('https://example.com/d.xml').item }) },
          },
          { type: 'shard_refused' },
          { type: 'finished', state: 'running' },
          { type: 'already', state: 'running' },
        ]);
        expect(await getJobStatus(store, jobId)).toMatchObject({
          urlsFound: 5,
          shardsWritten: 2,
          sitemapsDone: 2,
          sitemapsPending: 2,
          errors: [expect.objectContaining({ kind: 'http_status', url: B })],
        });
        expect((await store.readShard(jobId, 1))?.map((entry) => entry.url)).toEqual(urls('c', 1).map((entry) => entry.url));
        // A retry after a lost reply: every finish is already applied, the claim hands the same work back.
        const again = await store.finishMany(jobId, batch);
        expect(again).toEqual([{ ...results[0], type: 'already' }, { type: 'shard_refused' }, { type: 'already', state: 'running' }, results[3]]);
        expect(await getJobStatus(store, jobId)).toMatchObject({
          urlsFound: 5,
          shardsWritten: 2,
          sitemapsDone: 2,
          errors: [expect.objectContaining({ kind: 'http_status' })],
        });
        expect(await store.finishMany(jobId, [])).toEqual([]);
      }),
    );

    it(
      'ends the job in a batch as the same finishes would one by one: the finish after it sees the job done',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const [a, b] = [await claimWork(store, jobId), await claimWork(store, jobId)];
        const done = (work: typeof a) => ({ workId: work.workId, token: work.token, errors: [], countSitemap: true, failure: 'none' as const });
        const nextClaim = { token: newLeaseToken(), leaseMs: 10_000, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS };
        const results = await store.finishMany(jobId, [
          { ...done(a), claim: nextClaim },
          { ...done(b), claim: { ...nextClaim, token: newLeaseToken() } },
          { ...done(b), token: newLeaseToken(), claim: { ...nextClaim, token: newLeaseToken() } },
        ]);
        expect(results).toEqual([
          { type: 'finished', state: 'running', next: { type: 'wait', active: 1 } },
          { type: 'finished', state: 'done', next: { type: 'halted', state: 'done' } },
          { type: 'already', state: 'done', next: { type: 'halted', state: 'done' } },
        ]);
        expect(await getJobStatus(store, jobId)).toMatchObject({ state: 'done', sitemapsDone: 2 });
      }),
    );

    it(
      'finishes nothing when the last shard is refused (offset moved, over maxUrls, halted)',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B], { maxUrls: 4 });
        const work = await claimWork(store, jobId);
        const finish = { workId: work.workId, token: work.token, errors: [], countSitemap: true, failure: 'none' as const };
        expect(await store.finishWork(jobId, { ...finish, shard: { offset: 2, entries: urls('a', 1) } })).toEqual({ type: 'shard_refused' });
        expect(await store.finishWork(jobId, { ...finish, shard: { offset: 0, entries: urls('a', 5) } })).toEqual({ type: 'shard_refused' });
        expect(await getJobStatus(store, jobId)).toMatchObject({ urlsFound: 0, shardsWritten: 0, sitemapsDone: 0, sitemapsPending: 2 });
        await store.stop(jobId);
        expect(await store.finishWork(jobId, { ...finish, shard: { offset: 0, entries: urls('a', 1) } })).toEqual({ type: 'shard_refused' });
        expect(await getJobStatus(store, jobId)).toMatchObject({ state: 'stopped', urlsFound: 0, sitemapsDone: 0 });
      }),
    );

    it(
      'says done once nothing is pending or leased',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId);
        await store.finishWork(jobId, { workId: work.workId, token: work.token, errors: [], countSitemap: true, failure: 'none' });
        expect(await getJobStatus(store, jobId)).toMatchObject({ state: 'done', done: true, sitemapsPending: 0, sitemapsDone: 1 });
        expect(await store.claim(jobId, { token: newLeaseToken(), leaseMs: 10, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).toEqual({
          type: 'halted',
          state: 'done',
        });
      }),
    );

    it(
      'fails the job when its only root fails, with the error kind',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId);
        const error = { kind: 'not_sitemap' as const, url: A, message: 'HTML page' };
        expect(await store.finishWork(jobId, { workId: work.workId, token: work.token, errors: [error], countSitemap: true, failure: 'root' })).toEqual({
          type: 'finished',
          state: 'failed',
        });
        expect(await getJobStatus(store, jobId)).toMatchObject({ state: 'failed', done: true, errors: [{ kind: 'not_sitemap', url: A }] });
      }),
    );

    it(
      'goes on when one of several roots fails',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const work = await claimWork(store, jobId);
        const error = { kind: 'http_status' as const, url: A, message: '500' };
        expect(await store.finishWork(jobId, { workId: work.workId, token: work.token, errors: [error], countSitemap: true, failure: 'root' })).toEqual({
          type: 'finished',
          state: 'running',
        });
      }),
    );

    it(
      'fails the job at once on a job-level failure',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const work = await claimWork(store, jobId);
        const error = { kind: 'robots_unreachable' as const, url: A, message: '503' };
        expect(await store.finishWork(jobId, { workId: work.workId, token: work.token, errors: [error], countSitemap: false, failure: 'job' })).toEqual({
          type: 'finished',
          state: 'failed',
        });
      }),
    );

    it(
      'claims each queued slice number once, upward only, gives back the last one claimed, and none once the job ended',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        expect(await store.lastSlice(jobId)).toBe(0);
        expect(await store.claimSlice(jobId, 1)).toBe(true);
        expect(await store.claimSlice(jobId, 1)).toBe(false);
        expect(await store.claimSlice(jobId, 3)).toBe(true);
        expect(await store.claimSlice(jobId, 2)).toBe(false);
        expect(await store.lastSlice(jobId)).toBe(3);
        await store.releaseSlice(jobId, 2);
        expect(await store.lastSlice(jobId)).toBe(3);
        await store.releaseSlice(jobId, 3);
        expect(await store.lastSlice(jobId)).toBe(2);
        expect(await store.claimSlice(jobId, 3)).toBe(true);
        await stopJob(store, jobId);
        expect(await store.claimSlice(jobId, 4)).toBe(false);
        expect(await store.lastSlice(jobId)).toBe(3);
      }),
    );

    it(
      'stops a running job: no claim, commit or enqueue goes through afterwards',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const work = await claimWork(store, jobId);
        expect(await stopJob(store, jobId)).toMatchObject({ state: 'stopped', done: true });
        expect(await store.claim(jobId, { token: newLeaseToken(), leaseMs: 10, maxClaims: MAX_CLAIMS_WITHOUT_PROGRESS })).toEqual({
          type: 'halted',
          state: 'stopped',
        });
        expect(await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 0, entries: urls('p', 1) })).toEqual({
          type: 'halted',
          state: 'stopped',
        });
        expect(await store.enqueue(jobId, { items: [sitemapWork('https://example.com/x.xml', 1, A)], roots: false })).toEqual({
          type: 'halted',
          state: 'stopped',
        });
        expect((await getJobStatus(store, jobId)).urlsFound).toBe(0);
      }),
    );

    it(
      'keeps a finished job done when asked to stop',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId);
        await store.finishWork(jobId, { workId: work.workId, token: work.token, errors: [], countSitemap: true, failure: 'none' });
        expect((await store.stop(jobId)).state).toBe('done');
      }),
    );

    it(
      'cuts at maxUrls exactly and reports it',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A], { maxUrls: 1500 });
        const work = await claimWork(store, jobId);
        await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 0, entries: urls('p', 1000) });
        const over = { workId: work.workId, token: work.token, offset: 1000, entries: urls('q', 1000) };
        expect(await store.commitShard(jobId, over)).toEqual({ type: 'over_limit', allowance: 500 });
        expect(await store.commitShard(jobId, { ...over, entries: over.entries.slice(0, 500) })).toMatchObject({ type: 'committed', urlsFound: 1500 });
        expect(await getJobStatus(store, jobId)).toMatchObject({
          state: 'done',
          urlsFound: 1500,
          errors: [],
          limitReached: 'maxUrls (1500) reached: the run stopped there',
        });
        // The store keeps it with the errors: the removal step must know the run was cut.
        expect((await store.readStatus(jobId)).errors).toMatchObject([{ kind: 'too_many_urls', url: null }]);
      }),
    );

    it(
      'keeps at most MAX_ERRORS_KEPT errors',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId);
        const errors = Array.from({ length: MAX_ERRORS_KEPT + 5 }, (_, i) => ({ kind: 'http_status' as const, url: `${A}?${i}`, message: '404' }));
        await store.finishWork(jobId, { workId: work.workId, token: work.token, errors, countSitemap: true, failure: 'none' });
        expect((await getJobStatus(store, jobId)).errors).toHaveLength(MAX_ERRORS_KEPT);
      }),
    );

    it(
      "keeps a finished sitemap's validator and unchanged mark in the finishing step, once, for the next run",
      withStore(async (store) => {
        const jobId = await createdJob(store, [A, B]);
        const validator = { etag: '"e1"', lastModified: null, lastmod: '2026-01-01' };
        const first = await claimWork(store, jobId);
        const finishA = { workId: first.workId, token: first.token, errors: [], countSitemap: true, failure: 'none' as const };
        await store.finishWork(jobId, { ...finishA, resync: { key: 'k:a', url: A, validator, unchanged: true } });
        // A retried finish (lost reply) changes nothing.
        await store.finishWork(jobId, { ...finishA, resync: { key: 'k:a', url: A, validator, unchanged: true } });
        const second = await claimWork(store, jobId);
        await store.finishWork(jobId, {
          workId: second.workId,
          token: second.token,
          errors: [],
          countSitemap: true,
          failure: 'none',
          resync: { key: 'k:b', url: B, validator: null, unchanged: false },
        });
        expect(await store.readResync(jobId)).toEqual({ validators: { 'k:a': validator }, unchanged: [A] });
        expect(await store.readResync(newJob([A]).meta.jobId)).toEqual({ validators: {}, unchanged: [] });
      }),
    );

    it(
      "hands a job the previous run's validators it was seeded with, by key",
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const validator = { etag: null, lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT', lastmod: null };
        await store.seedPrevious(jobId, { 'k:a': validator });
        await store.seedPrevious(jobId, { 'k:b': { ...validator, lastmod: '2026-01-01' } });
        expect(await store.readPrevious(jobId, 'k:a')).toEqual(validator);
        expect(await store.readPrevious(jobId, 'k:b')).toEqual({ ...validator, lastmod: '2026-01-01' });
        expect(await store.readPrevious(jobId, 'k:c')).toBeNull();
      }),
    );

    it(
      'stores URLs with any characters unchanged',
      withStore(async (store) => {
        const jobId = await createdJob(store, [A]);
        const work = await claimWork(store, jobId);
        const odd = ['https://example.com/ünï/çødé?q="x"&y=1', 'https://example.com/%E2%9C%93', 'https://例え.jp/パス', '1000'];
        await store.commitShard(jobId, { workId: work.workId, token: work.token, offset: 0, entries: entriesOf(odd) });
        expect(await store.readShard(jobId, 0)).toEqual(entriesOf(odd));
      }),
    );
  });
}
